// Which card forms a JavaScript SDK's card resolver takes (@a2a-js/sdk, either line).
//
// Reads a plan (JSON) on stdin and prints a report (JSON) on stdout. For each of
// the card's two forms, the hosted v0.3 one (fetched without A2A-Version) and
// 1.0's (fetched with A2A-Version: 1.0), it resolves the card with the SDK's
// DefaultAgentCardResolver, makes a client from what it resolved, and sends one
// message through it. plan.line says which line is installed ("0.3" or "1.x").
// The test asserts on the report; this script only observes.
import * as sdk from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { readPlan } from './plan.mjs';
import { bearerFetch } from './bearer.mjs';

const plan = await readPlan();
const fetchImpl = bearerFetch(plan.tokens.pro);

// The card fetch with the form's A2A-Version, whatever the resolver asked for.
function cardFetch(form) {
  return (url, init) => {
    const headers = new Headers(init?.headers);
    if (form === '1.0') headers.set('A2A-Version', '1.0');
    else headers.delete('A2A-Version');
    return fetch(url, { ...init, headers });
  };
}

function message(form) {
  const metadata = { skillId: plan.skill };
  const messageId = `card-${plan.line}-${form}`;
  if (plan.line === '0.3') {
    return { message: { kind: 'message', messageId, role: 'user', parts: [{ kind: 'text', text: plan.text }], metadata } };
  }
  const parts = [{ content: { $case: 'text', value: plan.text } }];
  return { message: { messageId, role: sdk.Role.ROLE_USER, parts, metadata } };
}

function state(result) {
  const found = result?.status?.state ?? result?.task?.status?.state;
  return plan.line === '0.3' ? found : sdk.TaskState[found];
}

const report = {};
for (const form of ['hosted', '1.0']) {
  const seen = { resolved: false, error: null, sent: null };
  report[form] = seen;
  let card;
  try {
    card = await new DefaultAgentCardResolver({ fetchImpl: cardFetch(form) }).resolve(plan.baseUrl);
  } catch (error) {
    seen.error = `${error.constructor.name}: ${error.message}`;
    continue;
  }
  seen.resolved = true;
  seen.url = card.url ?? null;
  seen.interfaces = (card.supportedInterfaces ?? []).map((i) => [i.protocolBinding, i.protocolVersion]);
  try {
    const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
    });
    const client = await new ClientFactory(options).createFromAgentCard(card);
    seen.sent = state(await client.sendMessage(message(form)));
  } catch (error) {
    seen.sent = `${error.constructor.name}: ${error.message}`;
  }
}
console.log(JSON.stringify(report));
