// Signing in from the page, as any public OAuth client does: discovery (RFC 9728,
// then RFC 8414), dynamic registration (RFC 7591), the authorization code with
// PKCE S256 (RFC 7636) and the resource indicator (RFC 8707). The tokens live in
// sessionStorage: closing the tab forgets them.

const PENDING = 'a2a-playground-oauth-pending';
const SESSION = 'a2a-playground-oauth-session';

export class OAuthProblem extends Error {
  constructor(kind, detail = '') {
    super(detail || kind);
    this.kind = kind; // 'insecure', 'unavailable', 'denied', 'failed'
  }
}

function base64url(bytes) {
  let text = '';
  for (const byte of new Uint8Array(bytes)) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function random(size) {
  return base64url(crypto.getRandomValues(new Uint8Array(size)));
}

async function getJson(url) {
  const response = await fetch(url, { headers: { Accept: 'application/json' } });
  if (response.status === 404) throw new OAuthProblem('unavailable');
  if (!response.ok) throw new OAuthProblem('failed', `${url}: HTTP ${response.status}`);
  return response.json();
}

async function postForm(url, fields) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: new URLSearchParams(fields),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const reason = body.error_description || body.error || `HTTP ${response.status}`;
    throw new OAuthProblem('failed', reason);
  }
  return body;
}

// RFC 8414 section 3.1: the well-known segment goes before the issuer's path.
function metadataUrl(issuer) {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, '');
  return `${url.origin}/.well-known/oauth-authorization-server${path}`;
}

// Where the authorization server sends the browser back: this very page.
export function redirectUri() {
  return `${location.origin}${location.pathname}`;
}

export async function discover(endpointUrl) {
  const endpoint = new URL(endpointUrl);
  const resource = await getJson(
    `${endpoint.origin}/.well-known/oauth-protected-resource${endpoint.pathname}`,
  );
  const issuer = (resource.authorization_servers || [])[0];
  if (!issuer) throw new OAuthProblem('unavailable');
  const server = await getJson(metadataUrl(issuer));
  if (!server.registration_endpoint) throw new OAuthProblem('unavailable');
  return { resource: resource.resource, server };
}

export async function start(endpointUrl, clientName) {
  if (!window.isSecureContext || !crypto.subtle) throw new OAuthProblem('insecure');
  const { resource, server } = await discover(endpointUrl);
  const redirect = redirectUri();
  const registration = await fetch(server.registration_endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({
      client_name: clientName,
      redirect_uris: [redirect],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }),
  });
  const client = await registration.json().catch(() => ({}));
  if (!registration.ok) {
    const reason = client.error_description || client.error || `HTTP ${registration.status}`;
    throw new OAuthProblem('failed', reason);
  }
  const verifier = random(48);
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  const state = random(24);
  sessionStorage.setItem(
    PENDING,
    JSON.stringify({
      state,
      verifier,
      redirect,
      resource,
      clientId: client.client_id,
      tokenEndpoint: server.token_endpoint,
      revocationEndpoint: server.revocation_endpoint || null,
    }),
  );
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: redirect,
    scope: (server.scopes_supported || []).join(' '),
    state,
    code_challenge: base64url(digest),
    code_challenge_method: 'S256',
    resource,
  });
  location.assign(`${server.authorization_endpoint}?${query}`);
}

function save(pending, tokens) {
  const session = {
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token || null,
    expiresAt: Date.now() / 1000 + Number(tokens.expires_in || 0),
    clientId: pending.clientId,
    tokenEndpoint: pending.tokenEndpoint,
    revocationEndpoint: pending.revocationEndpoint,
    resource: pending.resource,
  };
  sessionStorage.setItem(SESSION, JSON.stringify(session));
  return session;
}

// Back from the authorization server: trade the code for tokens. Returns the
// session, null when this page load is not a return from sign-in.
export async function finish() {
  const params = new URLSearchParams(location.search);
  if (!params.has('code') && !params.has('error')) return null;
  const pending = JSON.parse(sessionStorage.getItem(PENDING) || 'null');
  sessionStorage.removeItem(PENDING);
  history.replaceState(null, '', location.pathname);
  if (!pending || params.get('state') !== pending.state) {
    throw new OAuthProblem('failed', 'the state does not match this sign-in');
  }
  if (params.has('error')) {
    if (params.get('error') === 'access_denied') throw new OAuthProblem('denied');
    throw new OAuthProblem('failed', params.get('error_description') || params.get('error'));
  }
  const tokens = await postForm(pending.tokenEndpoint, {
    grant_type: 'authorization_code',
    code: params.get('code'),
    redirect_uri: pending.redirect,
    client_id: pending.clientId,
    code_verifier: pending.verifier,
    resource: pending.resource,
  });
  return save(pending, tokens);
}

export function current() {
  return JSON.parse(sessionStorage.getItem(SESSION) || 'null');
}

// An access token that is good for the next call: refreshed (the refresh token
// rotates) when it has less than 10 s left.
export async function accessToken() {
  const session = current();
  if (!session) return null;
  if (session.expiresAt - Date.now() / 1000 > 10 || !session.refreshToken) {
    return session.accessToken;
  }
  const tokens = await postForm(session.tokenEndpoint, {
    grant_type: 'refresh_token',
    refresh_token: session.refreshToken,
    client_id: session.clientId,
  });
  return save(session, tokens).accessToken;
}

export async function signOut() {
  const session = current();
  sessionStorage.removeItem(SESSION);
  if (session && session.revocationEndpoint && session.refreshToken) {
    // Revoking the refresh token ends its access tokens too (RFC 7009).
    await postForm(session.revocationEndpoint, {
      token: session.refreshToken,
      token_type_hint: 'refresh_token',
      client_id: session.clientId,
    }).catch(() => null);
  }
}
