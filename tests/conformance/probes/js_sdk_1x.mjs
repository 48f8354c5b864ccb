// Drives the server with the official JavaScript SDK, 1.x line (@a2a-js/sdk).
//
// plan.dialect says which of the card's interfaces the client takes: "1.0", the
// SDK on its own (its card resolver and JSON-RPC transport with no compatibility
// layer: it reads the card, prefers the 1.0 interface and speaks A2A 1.0); "0.3",
// the card's v0.3 interface, through the SDK's opt-in v0.3 compatibility layer
// (`legacyCompat: { enabled: true }` on the card resolver and the transport).
//
// Reads a plan (JSON) on stdin and prints a report (JSON) on stdout: for each
// case, what the SDK returned, or which of its own error types it threw with
// what it carries. The test asserts on the report; this script only observes.
import { Role, TaskState } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { readPlan } from './plan.mjs';
import { bearerFetch } from './bearer.mjs';

function describe(error) {
  const bases = [];
  for (let c = error.constructor; c?.name; c = Object.getPrototypeOf(c)) bases.push(c.name);
  return {
    ok: false,
    class: error.constructor.name,
    bases,
    code: error.envelopeCode ?? null,
    serverMessage: error.message,
    data: error.data ?? null,
    transport: error.transport ?? null,
    httpStatus: null,
    retryAfterHeader: null,
  };
}

function summary(task) {
  return {
    id: task.id,
    contextId: task.contextId,
    state: TaskState[task.status.state],
    texts: task.artifacts.flatMap((a) =>
      a.parts.filter((p) => p.content?.$case === 'text').map((p) => p.content.value),
    ),
    historyRoles: task.history.map((m) => Role[m.role]),
    metadata: task.metadata,
  };
}

async function outcome(call) {
  try {
    const value = await call();
    if (value && 'status' in value && 'artifacts' in value) return { ok: true, task: summary(value) };
    return { ok: true, value: value ?? null };
  } catch (error) {
    return describe(error);
  }
}

const plan = await readPlan();
const native = plan.dialect === '1.0';
const legacyCompat = { enabled: true };
const clients = {};
async function client(tokenName) {
  if (!clients[tokenName]) {
    const fetchImpl = bearerFetch(plan.tokens[tokenName]);
    if (native) {
      const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      });
      clients[tokenName] = await new ClientFactory(options).createFromUrl(plan.baseUrl);
    } else {
      const resolver = new DefaultAgentCardResolver({ fetchImpl, legacyCompat });
      const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat })],
        cardResolver: resolver,
      });
      const card = await resolver.resolve(plan.baseUrl);
      card.supportedInterfaces = card.supportedInterfaces.filter((i) => i.protocolVersion === '0.3');
      clients[tokenName] = await new ClientFactory(options).createFromAgentCard(card);
    }
  }
  return clients[tokenName];
}

function message(text, skill, parts, contextId) {
  const sent = {
    messageId: `js1-${skill}-${text}`,
    role: Role.ROLE_USER,
    parts: parts ?? [{ content: { $case: 'text', value: text } }],
    metadata: { skillId: skill },
  };
  if (contextId) sent.contextId = contextId;
  return { message: sent };
}

const { text, skill } = plan;
const pro = await client('pro');
const iface = pro.agentCard.supportedInterfaces.find((i) => i.protocolVersion === pro.protocolVersion)
  ?? pro.agentCard.supportedInterfaces[0];
const report = {
  card: {
    protocolVersion: iface.protocolVersion,
    url: iface.url,
    transport: pro.transport.constructor.name,
    interfaces: pro.agentCard.supportedInterfaces.map((i) => i.protocolVersion),
  },
};
report.send = await outcome(() => pro.sendMessage(message(text, skill, undefined, plan.context)));
const taskId = report.send.ok ? report.send.task.id : 'missing';
report.get = await outcome(() => pro.getTask({ id: taskId, historyLength: 1 }));
report.cancel = await outcome(() => pro.cancelTask({ id: taskId }));
report.get_unknown = await outcome(() => pro.getTask({ id: plan.unknownTaskId }));
report.cancel_unknown = await outcome(() => pro.cancelTask({ id: plan.unknownTaskId }));
report.send_unknown_skill = await outcome(() => pro.sendMessage(message(text, plan.unknownSkill)));
report.send_empty_parts = await outcome(() => pro.sendMessage(message(text, skill, [])));
report.send_rate_limited = await outcome(async () => (await client('limited')).sendMessage(message(text, skill)));
report.send_bad_token = await outcome(async () => (await client('bogus')).sendMessage(message(text, skill)));
report.send_free_plan = await outcome(async () => (await client('free')).sendMessage(message(text, skill)));
report.get_internal_error = await outcome(async () => (await client('internal')).getTask({ id: taskId }));
if (native) {
  // The Client refuses push-notification calls itself (the card declares them
  // off); the transport sends them (with the version header the Client would
  // add), and the server refuses them as 1.0 says.
  const asClient = { serviceParameters: { 'A2A-Version': pro.protocolVersion } };
  report.unknown_method = await outcome(() =>
    pro.transport.getTaskPushNotificationConfig({ tenant: '', taskId, id: 'any' }, asClient),
  );
  report.second = await outcome(() => pro.sendMessage(message(`${text} again`, skill)));
  report.list = await outcome(() => pro.listTasks({}));
  report.list_context = await outcome(() => pro.listTasks({ contextId: plan.context }));
  report.list_first_page = await outcome(() => pro.listTasks({ pageSize: 1 }));
  report.list_second_page = await outcome(() =>
    pro.listTasks({ pageSize: 1, pageToken: report.list_first_page.value?.nextPageToken }),
  );
  report.extended_card = await outcome(() => pro.getAgentCard());
} else {
  // The Client refuses push-notification and extended-card calls itself (the
  // card offers neither); the SDK's own v0.3 transport sends them regardless.
  const transport = new LegacyJsonRpcTransport({ endpoint: iface.url, fetchImpl: bearerFetch(plan.tokens.pro) });
  report.unknown_method = await outcome(() => transport.getExtendedAgentCard({ tenant: '' }));
}
console.log(JSON.stringify(report));
