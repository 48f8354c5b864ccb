// Drives the server with the official JavaScript SDK, 0.3.x line (@a2a-js/sdk).
//
// Reads a plan (JSON) on stdin and prints a report (JSON) on stdout: for each
// case, what the SDK returned, or which of its own error types it threw with
// what it carries. The test asserts on the report; this script only observes.
import {
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransport,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { readPlan } from './plan.mjs';
import { bearerFetch } from './bearer.mjs';

function describe(error) {
  const bases = [];
  for (let c = error.constructor; c?.name; c = Object.getPrototypeOf(c)) {
    bases.push(c.name);
  }
  const rpc = error.errorResponse?.error;
  return {
    ok: false,
    class: error.constructor.name,
    bases,
    sdkMessage: error.message,
    code: rpc?.code ?? null,
    serverMessage: rpc?.message ?? null,
    data: rpc?.data ?? null,
    httpStatus: null,
    retryAfterHeader: null,
  };
}

async function outcome(call) {
  try {
    const value = await call();
    if (value?.kind === 'task') {
      return {
        ok: true,
        task: {
          id: value.id,
          contextId: value.contextId,
          state: value.status.state,
          texts: value.artifacts.flatMap((a) => a.parts.filter((p) => p.kind === 'text').map((p) => p.text)),
          historyRoles: (value.history ?? []).map((m) => m.role),
          metadata: value.metadata,
        },
      };
    }
    return { ok: true, value: value ?? null };
  } catch (error) {
    return describe(error);
  }
}

const plan = await readPlan();
const clients = {};
async function client(tokenName) {
  if (!clients[tokenName]) {
    const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: bearerFetch(plan.tokens[tokenName]) })],
    });
    clients[tokenName] = await new ClientFactory(options).createFromUrl(plan.baseUrl);
  }
  return clients[tokenName];
}

function message(text, skill, parts) {
  return {
    message: {
      kind: 'message',
      role: 'user',
      messageId: `js03-${skill}-${text}`,
      parts: parts ?? [{ kind: 'text', text }],
      metadata: { skillId: skill },
    },
  };
}

const { text, skill } = plan;
const pro = await client('pro');
const report = {
  card: {
    protocolVersion: pro.agentCard.protocolVersion,
    url: pro.agentCard.url,
    transport: pro.transport.constructor.name,
  },
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
// The Client refuses push-notification calls itself (the card says there are
// none); the SDK's transport calls any method by name.
const transport = new JsonRpcTransport({ endpoint: pro.agentCard.url, fetchImpl: bearerFetch(plan.tokens.pro) });
report.unknown_method = await outcome(() => transport.callExtensionMethod('tasks/list', {}, 7));
console.log(JSON.stringify(report));
