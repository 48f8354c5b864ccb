// The call just made, as a shell command (curl) and as a Python program with the
// official SDK (a2a-sdk, the 0.3 line this dialect is), to take out of the page.
// A demo token is written out; any other token is read from A2A_TOKEN, so a
// copied snippet never carries a real credential.

function shellQuote(text) {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

// A JSON value as a Python literal (JSON's string escapes are Python's too).
export function python(value, indent = '') {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  const inner = `${indent}    `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => `${inner}${python(v, inner)},`).join('\n')}\n${indent}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return '{}';
  const lines = entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${python(v, inner)},`);
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function isDemo(token) {
  return /^demo-(free|pro|organization|enterprise)$/.test(token || '');
}

export function curl(endpoint, body, token) {
  const lines = [];
  let auth;
  if (isDemo(token)) {
    auth = shellQuote(`Authorization: Bearer ${token}`);
  } else {
    lines.push('# export A2A_TOKEN=...   # your API token or OAuth access token');
    auth = '"Authorization: Bearer $A2A_TOKEN"';
  }
  lines.push(
    `curl -sS -i ${shellQuote(endpoint)} \\`,
    "  -H 'Content-Type: application/json' \\",
    `  -H ${auth} \\`,
    `  -d ${shellQuote(JSON.stringify(body))}`,
  );
  return lines.join('\n');
}

function sdkParts(parts) {
  return parts.map((part) =>
    part.kind === 'data'
      ? `Part(root=DataPart(data=${python(part.data, '                ')}))`
      : `Part(root=TextPart(text=${python(part.text)}))`,
  );
}

export function sdk(baseUrl, method, params, token) {
  const imports = new Set(['Message', 'Part', 'Role']);
  const head = ['# pip install "a2a-sdk>=0.3,<0.4"', 'import asyncio'];
  if (!isDemo(token)) head.push('import os');
  head.push('import uuid', '');
  const authorization = isDemo(token)
    ? python(`Bearer ${token}`)
    : '"Bearer " + os.environ["A2A_TOKEN"]';
  let call;
  if (method === 'message/send') {
    const message = params.message;
    for (const part of message.parts) imports.add(part.kind === 'data' ? 'DataPart' : 'TextPart');
    const fields = [
      '            role=Role.user,',
      '            message_id=str(uuid.uuid4()),',
      `            parts=[\n${sdkParts(message.parts).map((p) => `                ${p},`).join('\n')}\n            ],`,
    ];
    if (message.contextId) fields.push(`            context_id=${python(message.contextId)},`);
    if (message.metadata) {
      fields.push(`            metadata=${python(message.metadata, '            ')},`);
    }
    call = [
      '        message = Message(',
      ...fields,
      '        )',
      '        async for event in client.send_message(message):',
      '            task = event[0] if isinstance(event, tuple) else event',
      '            print(task.model_dump_json(indent=2, exclude_none=True))',
    ];
  } else {
    const get = method === 'tasks/get';
    const kind = get ? 'TaskQueryParams' : 'TaskIdParams';
    imports.delete('Message');
    imports.delete('Part');
    imports.delete('Role');
    imports.add(kind);
    const args = [`id=${python(params.id)}`];
    if (get && params.historyLength !== undefined) args.push(`history_length=${params.historyLength}`);
    call = [
      `        task = await client.${get ? 'get_task' : 'cancel_task'}(${kind}(${args.join(', ')}))`,
      '        print(task.model_dump_json(indent=2, exclude_none=True))',
    ];
  }
  if (!call.join('\n').includes('uuid.')) head.splice(head.indexOf('import uuid'), 1);
  return [
    ...head,
    'import httpx',
    'from a2a.client import A2ACardResolver, ClientConfig, ClientFactory',
    `from a2a.types import ${[...imports].sort().join(', ')}`,
    '',
    '',
    'async def main() -> None:',
    `    headers = {"Authorization": ${authorization}}`,
    '    async with httpx.AsyncClient(headers=headers, timeout=120) as http:',
    `        card = await A2ACardResolver(http, ${python(baseUrl)}).get_agent_card()`,
    '        client = ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create(card)',
    ...call,
    '        await client.close()',
    '',
    '',
    'asyncio.run(main())',
    '',
  ].join('\n');
}
