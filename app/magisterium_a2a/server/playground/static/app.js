// The playground: pick a skill, write a part, send it to the endpoint the agent
// card names, and see everything a client sees. No framework and no build step;
// every text the page shows comes from i18n.js, every value from the wire.
import { LANGUAGES, pick, translator } from './i18n.js';
import * as oauth from './oauth.js';
import { curl, sdk } from './snippets.js';

const LANGUAGE_KEY = 'a2a-playground-language';
const CREDENTIAL_KEY = 'a2a-playground-credential';
const SHOWN_HEADERS = [
  'content-type',
  'x-request-id',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'retry-after',
  'www-authenticate',
];

const $ = (id) => document.getElementById(id);
let language = 'en';
let t = translator(language);
let card = null;
let lastTask = null;
let lastCall = null;
let lastExchange = null;
let requestNumber = 0;
let countdown = null;

class InputProblem extends Error {}

function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'text') node.textContent = value;
    else node.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

function newId() {
  // crypto.randomUUID needs a secure context; getRandomValues does not.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `pg-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

function pretty(value) {
  return JSON.stringify(value, null, 2);
}

// --- language ------------------------------------------------------------------

function applyLanguage(chosen) {
  language = chosen;
  t = translator(language);
  document.documentElement.lang = language;
  for (const node of document.querySelectorAll('[data-i18n]')) {
    node.textContent = t(node.dataset.i18n);
  }
  $('language').value = language;
  document.title = card ? `${card.name} · ${t('title')}` : t('title');
  showSkill();
  renderOAuthStatus();
  if (lastExchange) showExchange(lastExchange);
}

function setUpLanguages() {
  const select = $('language');
  for (const [code, name] of Object.entries(LANGUAGES)) {
    select.append(el('option', { value: code, lang: code, text: name }));
  }
  select.addEventListener('change', () => {
    localStorage.setItem(LANGUAGE_KEY, select.value);
    applyLanguage(select.value);
  });
  applyLanguage(pick(localStorage.getItem(LANGUAGE_KEY), navigator.languages));
}

// --- the card and the skills ------------------------------------------------------

async function loadCard() {
  const response = await fetch('/.well-known/agent-card.json', {
    headers: { Accept: 'application/json' },
  });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  card = await response.json();
  $('agent-name').textContent = card.name;
  $('endpoint-url').textContent = card.url;
  document.title = `${card.name} · ${t('title')}`;
  const select = $('skill');
  for (const skill of card.skills || []) {
    select.append(el('option', { value: skill.id, text: `${skill.name} (${skill.id})` }));
  }
  if (!(card.securitySchemes || {}).oauth2) {
    $('oauth-sign-in').disabled = true;
  }
}

function currentSkill() {
  return (card?.skills || []).find((skill) => skill.id === $('skill').value) || null;
}

function acceptsData(skill) {
  const modes = skill?.inputModes || card?.defaultInputModes || [];
  return modes.includes('application/json');
}

function asDataExample(text) {
  try {
    const value = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}

function showSkill() {
  const skill = currentSkill();
  $('skill-description').textContent = skill ? skill.description : '';
  const examples = $('examples');
  for (const old of examples.querySelectorAll('button')) old.remove();
  for (const example of skill?.examples || []) {
    const button = el('button', { type: 'button', class: 'example', text: example });
    button.addEventListener('click', () => {
      const data = asDataExample(example) && acceptsData(skill);
      $(data ? 'part-data' : 'part-text').checked = true;
      $('message-input').value = data ? pretty(JSON.parse(example)) : example;
      $('message-input').focus();
      updateSnippets();
    });
    examples.append(button);
  }
  const dataAllowed = acceptsData(skill);
  $('part-data').disabled = !dataAllowed;
  if (!dataAllowed) $('part-text').checked = true;
  $('part-data').title = dataAllowed ? '' : t('textOnly');
  updateSnippets();
}

// --- credentials -----------------------------------------------------------------

function credentialKind() {
  return document.querySelector('input[name="credential"]:checked').value;
}

async function bearerToken() {
  const kind = credentialKind();
  if (kind === 'demo') return $('demo-plan').value;
  if (kind === 'token') {
    const token = $('api-token').value.trim();
    if (!token) throw new InputProblem(t('needToken'));
    return token;
  }
  const token = await oauth.accessToken();
  if (!token) throw new InputProblem(t('needSignIn'));
  return token;
}

function renderOAuthStatus(problem) {
  const status = $('oauth-status');
  const session = oauth.current();
  $('oauth-sign-out').hidden = !session;
  if (problem) {
    status.textContent = problem;
    return;
  }
  if (card && !(card.securitySchemes || {}).oauth2) {
    status.textContent = t('oauthUnavailable');
  } else if (session) {
    const seconds = Math.max(0, Math.round(session.expiresAt - Date.now() / 1000));
    status.textContent = t('signedIn', { seconds });
  } else {
    status.textContent = t('signedOut');
  }
}

function oauthMessage(problem) {
  if (!(problem instanceof oauth.OAuthProblem)) return t('oauthFailed', { reason: problem.message });
  if (problem.kind === 'insecure') return t('oauthInsecure');
  if (problem.kind === 'unavailable') return t('oauthUnavailable');
  if (problem.kind === 'denied') return t('oauthDenied');
  return t('oauthFailed', { reason: problem.message });
}

function chooseCredential(kind) {
  $(`cred-${kind}`).checked = true;
  sessionStorage.setItem(CREDENTIAL_KEY, kind);
}

function setUpCredentials() {
  const saved = sessionStorage.getItem(CREDENTIAL_KEY);
  if (saved && $(`cred-${saved}`)) $(`cred-${saved}`).checked = true;
  for (const radio of document.querySelectorAll('input[name="credential"]')) {
    radio.addEventListener('change', () => {
      sessionStorage.setItem(CREDENTIAL_KEY, radio.value);
      updateSnippets();
    });
  }
  $('demo-plan').addEventListener('change', () => {
    chooseCredential('demo');
    updateSnippets();
  });
  $('api-token').addEventListener('input', () => chooseCredential('token'));
  $('oauth-sign-in').addEventListener('click', async () => {
    chooseCredential('oauth');
    $('oauth-status').textContent = t('signingIn');
    try {
      await oauth.start(card.url, `${card.name} playground`);
    } catch (problem) {
      renderOAuthStatus(oauthMessage(problem));
    }
  });
  $('oauth-sign-out').addEventListener('click', async () => {
    await oauth.signOut();
    renderOAuthStatus();
    $('oauth-sign-in').focus();
  });
}

// --- calls -------------------------------------------------------------------------

function buildMessage() {
  const raw = $('message-input').value;
  if (!raw.trim()) throw new InputProblem(t('emptyMessage'));
  let part;
  if ($('part-data').checked) {
    let data;
    try {
      data = JSON.parse(raw);
    } catch (error) {
      throw new InputProblem(t('invalidJson', { reason: error.message }));
    }
    if (data === null || typeof data !== 'object' || Array.isArray(data)) {
      throw new InputProblem(t('invalidJson', { reason: Array.isArray(data) ? 'array' : typeof data }));
    }
    part = { kind: 'data', data };
  } else {
    part = { kind: 'text', text: raw };
  }
  const message = { role: 'user', kind: 'message', messageId: newId(), parts: [part] };
  if ($('same-context').checked && lastTask?.contextId) message.contextId = lastTask.contextId;
  message.metadata = { skillId: $('skill').value };
  return message;
}

function showInputProblem(text) {
  const box = $('input-error');
  box.hidden = !text;
  box.textContent = text || '';
  $('message-input').setAttribute('aria-invalid', text ? 'true' : 'false');
}

async function call(method, params) {
  const token = await bearerToken();
  const body = { jsonrpc: '2.0', id: ++requestNumber, method, params };
  const headers = { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` };
  lastCall = { method, params, body, token };
  updateSnippets();
  const exchange = { method, url: card.url, body, token, credential: credentialKind() };
  const started = performance.now();
  try {
    const response = await fetch(card.url, { method: 'POST', headers, body: JSON.stringify(body) });
    exchange.status = response.status;
    exchange.headers = {};
    response.headers.forEach((value, name) => {
      exchange.headers[name] = value;
    });
    exchange.text = await response.text();
    try {
      exchange.answer = JSON.parse(exchange.text);
    } catch {
      exchange.answer = null;
    }
  } catch (error) {
    exchange.networkError = error.message;
  }
  exchange.ms = Math.round(performance.now() - started);
  exchange.retryDeadline = exchange.headers?.['retry-after']
    ? Date.now() + Number(exchange.headers['retry-after']) * 1000
    : null;
  lastExchange = exchange;
  if (exchange.answer?.result?.id) {
    lastTask = exchange.answer.result;
    $('task-id').value = lastTask.id;
  }
  showExchange(exchange);
}

async function run(button, work) {
  showInputProblem('');
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  $('outcome').replaceChildren(el('p', { class: 'hint', text: t('sending') }));
  try {
    await work();
  } catch (problem) {
    if (problem instanceof InputProblem) {
      showInputProblem(problem.message);
      $('outcome').replaceChildren();
    } else {
      $('outcome').replaceChildren(
        el('p', { class: 'alert', role: 'alert', text: t('oauthFailed', { reason: problem.message }) }),
      );
    }
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
}

function send() {
  return run($('send'), () => call('message/send', { message: buildMessage() }));
}

function taskCall(method, button) {
  return run(button, () => {
    const id = $('task-id').value.trim();
    if (!id) throw new InputProblem(t('needTaskId'));
    const params = { id };
    const length = $('history-length').value.trim();
    if (method === 'tasks/get' && length !== '') params.historyLength = Number(length);
    return call(method, params);
  });
}

// --- what came back ---------------------------------------------------------------

function showExchange(exchange) {
  showOutcome(exchange);
  showLimits(exchange);
  const task = exchange.answer?.result?.id ? exchange.answer.result : null;
  showAnswer(task);
  showTask(task);
  showWire(exchange);
}

function showOutcome(exchange) {
  const outcome = $('outcome');
  outcome.replaceChildren();
  if (exchange.networkError) {
    outcome.append(
      el('p', { class: 'alert', role: 'alert', text: t('networkError', { reason: exchange.networkError }) }),
    );
    return;
  }
  outcome.append(
    el('p', { id: 'http-status', 'data-status': exchange.status, text: t('outcomeLine', exchange) }),
  );
  const answer = exchange.answer;
  if (!answer) {
    outcome.append(el('p', { class: 'alert', role: 'alert', text: t('notJson', exchange) }));
    return;
  }
  if (answer.error) {
    const { code, message } = answer.error;
    outcome.append(
      el('p', { id: 'rpc-error', class: 'alert', role: 'alert', 'data-code': code, text: t('rpcError', { code, message }) }),
    );
    if (answer.error.data !== undefined) {
      outcome.append(el('pre', { class: 'code small', text: pretty(answer.error.data) }));
    }
    const hints = [];
    if (exchange.status === 401 && exchange.credential === 'demo') hints.push(t('demoRefused'));
    if (exchange.status === 401 && exchange.credential === 'oauth') hints.push(t('needSignIn'));
    if (exchange.status === 403) hints.push(t('freePlan'));
    if (exchange.status === 429) hints.push(t('raiseLimits'));
    for (const hint of hints) outcome.append(el('p', { class: 'hint', text: hint }));
    return;
  }
  const task = answer.result;
  if (task?.status) {
    outcome.append(
      el('p', { id: 'task-state', 'data-state': task.status.state, text: t('taskState', { state: task.status.state }) }),
    );
    if (task.status.state === 'failed') {
      outcome.append(
        el('p', { class: 'alert', role: 'alert', text: t('failedTask', { message: messageText(task.status.message) }) }),
      );
    }
  }
}

function showLimits(exchange) {
  const limits = $('limits');
  if (countdown) clearInterval(countdown);
  countdown = null;
  limits.replaceChildren(el('h3', { text: t('limitsHeading') }));
  const headers = exchange.headers || {};
  const table = el('dl', { class: 'headers' });
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after']) {
    if (headers[name] === undefined) continue;
    table.append(el('dt', { text: name }), el('dd', { id: `header-${name}`, text: headers[name] }));
  }
  if (headers['x-ratelimit-limit'] !== undefined) {
    limits.append(
      el('p', {
        text: t('limitLine', {
          remaining: headers['x-ratelimit-remaining'],
          limit: headers['x-ratelimit-limit'],
          reset: headers['x-ratelimit-reset'],
        }),
      }),
    );
  }
  if (headers['retry-after'] !== undefined) {
    limits.append(
      el('p', { id: 'rate-limited', class: 'alert', text: t('rateLimited', { seconds: headers['retry-after'] }) }),
    );
    const left = el('p', { id: 'countdown', class: 'hint' });
    limits.append(left);
    const tick = () => {
      const seconds = Math.ceil((exchange.retryDeadline - Date.now()) / 1000);
      left.textContent = seconds > 0 ? t('countdown', { seconds }) : t('readyAgain');
      if (seconds <= 0 && countdown) {
        clearInterval(countdown);
        countdown = null;
      }
    };
    tick();
    countdown = setInterval(tick, 1000);
  }
  if (table.childElementCount) limits.append(table);
  else limits.append(el('p', { class: 'hint', text: t('noLimitHeaders') }));
}

function messageText(message) {
  if (!message) return '';
  return (message.parts || [])
    .map((part) => (part.kind === 'text' ? part.text : pretty(part.data ?? part)))
    .join('\n');
}

function safeLink(url, text) {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'https:' || parsed.protocol === 'http:') {
      return el('a', { href: parsed.href, rel: 'noopener noreferrer', target: '_blank', text });
    }
  } catch {
    // not a URL: shown as text
  }
  return document.createTextNode(text);
}

function showDataPart(data, into) {
  const rest = { ...data };
  if (Array.isArray(data.citations)) {
    delete rest.citations;
    const list = el('ol', { class: 'citations' });
    for (const citation of data.citations) {
      const title = citation.document_title || citation.document_id || '';
      const item = el('li');
      item.append(citation.source_url ? safeLink(citation.source_url, title) : title);
      if (citation.cited_text) item.append(el('blockquote', { text: citation.cited_text }));
      list.append(item);
    }
    into.append(el('h4', { text: t('sources') }), list);
  }
  if (Array.isArray(data.results)) {
    delete rest.results;
    const list = el('ol', { class: 'results' });
    for (const found of data.results) {
      const item = el('li');
      const title = String(found?.title ?? found?.id ?? '');
      item.append(found?.url ? safeLink(found.url, title) : title);
      if (found?.id) item.append(' ', el('code', { text: found.id }));
      list.append(item);
    }
    into.append(list);
  }
  if (Array.isArray(data.related_questions)) {
    delete rest.related_questions;
    const list = el('ul', { class: 'related' });
    for (const question of data.related_questions) {
      const button = el('button', { type: 'button', class: 'example', text: question });
      button.addEventListener('click', () => {
        $('part-text').checked = true;
        $('message-input').value = question;
        $('message-input').focus();
      });
      list.append(el('li', {}, button));
    }
    into.append(el('h4', { text: t('related') }), list);
  }
  if (Object.keys(rest).length) {
    into.append(el('details', {}, el('summary', { text: t('data') }), el('pre', { class: 'code small', text: pretty(rest) })));
  }
}

function showAnswer(task) {
  const answer = $('answer');
  answer.replaceChildren();
  for (const artifact of task?.artifacts || []) {
    const block = el('article', { class: 'artifact', 'data-name': artifact.name || '' });
    block.append(el('h3', { text: t('artifact', { name: artifact.name || artifact.artifactId }) }));
    for (const part of artifact.parts || []) {
      if (part.kind === 'text') block.append(el('div', { class: 'answer-text', text: part.text }));
      else if (part.kind === 'data' && part.data && typeof part.data === 'object') showDataPart(part.data, block);
      else block.append(el('pre', { class: 'code small', text: pretty(part) }));
    }
    answer.append(block);
  }
}

function showTask(task) {
  const box = $('task');
  box.replaceChildren();
  if (!task) return;
  const summary = el(
    'dl',
    { class: 'summary' },
    el('dt', { text: t('taskId') }),
    el('dd', {}, el('code', { id: 'task-summary-id', text: task.id })),
    el('dt', { text: t('contextId') }),
    el('dd', {}, el('code', { text: task.contextId })),
    el('dt', { text: 'status.state' }),
    el('dd', { text: task.status?.state }),
  );
  box.append(el('h3', { text: t('taskHeading') }), summary);
  if (task.history?.length) {
    const list = el('ol', { class: 'history' });
    for (const message of task.history) {
      const who = message.role === 'user' ? t('roleUser') : t('roleAgent');
      const item = el('li', {}, el('strong', { text: `${who}: ` }));
      for (const part of message.parts || []) {
        if (part.kind === 'text') item.append(el('span', { text: part.text }));
        else {
          item.append(
            el('details', {}, el('summary', { text: t('data') }), el('pre', { class: 'code small', text: pretty(part.data ?? part) })),
          );
        }
      }
      list.append(item);
    }
    box.append(el('h4', { text: t('historyHeading') }), list);
  }
}

function showWire(exchange) {
  const shownToken = exchange.credential === 'demo' ? exchange.token : `${exchange.token.slice(0, 4)}…`;
  $('raw-request').textContent = [
    `POST ${exchange.url}`,
    'Content-Type: application/json',
    `Authorization: Bearer ${shownToken}`,
    '',
    pretty(exchange.body),
  ].join('\n');
  if (exchange.networkError) {
    $('raw-response').textContent = exchange.networkError;
    return;
  }
  const lines = [`HTTP ${exchange.status}`];
  for (const name of SHOWN_HEADERS) {
    if (exchange.headers[name] !== undefined) lines.push(`${name}: ${exchange.headers[name]}`);
  }
  lines.push('', exchange.answer ? pretty(exchange.answer) : exchange.text);
  $('raw-response').textContent = lines.join('\n');
}

// --- copy as curl / Python -------------------------------------------------------

function previewCall() {
  try {
    return { method: 'message/send', params: { message: buildMessage() } };
  } catch {
    return null;
  }
}

function updateSnippets() {
  if (!card) return;
  const shown = lastCall || previewCall();
  if (!shown) {
    $('snippet-curl').textContent = '';
    $('snippet-python').textContent = '';
    return;
  }
  const token = lastCall ? lastCall.token : credentialKind() === 'demo' ? $('demo-plan').value : '';
  const body = lastCall ? lastCall.body : { jsonrpc: '2.0', id: 1, method: shown.method, params: shown.params };
  $('snippet-curl').textContent = curl(card.url, body, token);
  $('snippet-python').textContent = sdk(location.origin, shown.method, shown.params, token);
}

async function copy(from) {
  const status = $('copy-status');
  try {
    await navigator.clipboard.writeText($(from).textContent);
    status.textContent = t('copied');
  } catch {
    const range = document.createRange();
    range.selectNodeContents($(from));
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    status.textContent = t('copyFailed');
  }
}

// --- start -------------------------------------------------------------------------

async function start() {
  setUpLanguages();
  setUpCredentials();
  try {
    await loadCard();
  } catch (error) {
    const box = $('page-error');
    box.hidden = false;
    box.textContent = t('cardFailed', { reason: error.message });
    return;
  }
  showSkill();
  try {
    if (await oauth.finish()) chooseCredential('oauth');
    renderOAuthStatus();
  } catch (problem) {
    chooseCredential('oauth');
    renderOAuthStatus(oauthMessage(problem));
  }
  $('skill').addEventListener('change', () => {
    lastCall = null;
    showSkill();
  });
  $('message-input').addEventListener('input', () => {
    lastCall = null;
    updateSnippets();
  });
  for (const radio of document.querySelectorAll('input[name="part"]')) {
    radio.addEventListener('change', () => {
      lastCall = null;
      updateSnippets();
    });
  }
  $('message-input').addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      send();
    }
  });
  $('send').addEventListener('click', send);
  $('get-task').addEventListener('click', () => taskCall('tasks/get', $('get-task')));
  $('cancel-task').addEventListener('click', () => taskCall('tasks/cancel', $('cancel-task')));
  $('copy-curl').addEventListener('click', () => copy('snippet-curl'));
  $('copy-python').addEventListener('click', () => copy('snippet-python'));
  document.body.dataset.ready = 'true';
}

start();
