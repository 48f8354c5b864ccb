// The SDK probes' fetch: every request with the plan's bearer token, as an
// SDK user sets it (@a2a-js/sdk, either line). Copied beside each probe by node_script.
import { createAuthenticatingFetchWithRetry } from '@a2a-js/sdk/client';

export function bearerFetch(token) {
  return createAuthenticatingFetchWithRetry(fetch, {
    headers: async () => ({ Authorization: `Bearer ${token}` }),
    shouldRetryWithHeaders: async () => undefined,
  });
}
