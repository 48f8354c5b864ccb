// Drives the server with the official JavaScript SDK, 1.x line (@a2a-js/sdk),
// through its opt-in v0.3 compatibility layer (`legacyCompat: { enabled: true }`
// on the card resolver and the JSON-RPC transport factory).
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
  createAuthenticatingFetchWithRetry,
} from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function bearerFetch(token) {
  return createAuthenticatingFetchWithRetry(fetch, {
    headers: async () => ({ Authorization: `Bearer ${token}` }),
    shouldRetryWithHeaders: async () => undefined,
  });
}

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

const plan = await readStdin();
const legacyCompat = { enabled: true };
const clients = {};
async function client(tokenName) {
  if (!clients[tokenName]) {
    const fetchImpl = bearerFetch(plan.tokens[tokenName]);
    const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl, legacyCompat }),
    });
    clients[tokenName] = await new ClientFactory(options).createFromUrl(plan.baseUrl);
  }
  return clients[tokenName];
}

function message(text, skill, parts) {
  return {
    message: {
      messageId: `js1-${skill}-${text}`,
      role: Role.ROLE_USER,
      parts: parts ?? [{ content: { $case: 'text', value: text } }],
      metadata: { skillId: skill },
    },
  };
}

const { text, skill } = plan;
const pro = await client('pro');
const iface = pro.agentCard.supportedInterfaces[0];
const report = {
  card: { protocolVersion: iface.protocolVersion, url: iface.url, transport: pro.transport.constructor.name },
};
report.send = await outcome(() => pro.sendMessage(message(text, skill)));
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
// The Client refuses push-notification and extended-card calls itself (the
// card offers neither); the SDK's own v0.3 transport sends them regardless.
const transport = new LegacyJsonRpcTransport({ endpoint: iface.url, fetchImpl: bearerFetch(plan.tokens.pro) });
report.unknown_method = await outcome(() => transport.getExtendedAgentCard({ tenant: '' }));
console.log(JSON.stringify(report));
