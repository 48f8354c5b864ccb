// What every probe shares: the plan the test writes on stdin (JSON).
// node_script (toolchains.py) copies it beside each probe it runs.
export async function readPlan() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}
