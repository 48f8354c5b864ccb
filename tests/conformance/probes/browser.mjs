// Opens a page in headless Chromium (driven by playwright-core) and reports
// what the page's own script saw when it called the A2A endpoint, plus the
// CORS preflights the browser sent (OPTIONS requests whose initiator is
// 'preflight'), as the DevTools protocol shows them.
//
// Reads a plan (JSON) on stdin: executablePath, args, userDataDir, pageUrl,
// and the config handed to the page's `runConformance`. Prints a report (JSON).
import { chromium } from 'playwright-core';
import { readPlan } from './plan.mjs';

const plan = await readPlan();
const context = await chromium.launchPersistentContext(plan.userDataDir, {
  executablePath: plan.executablePath,
  headless: true,
  args: plan.args,
});
try {
  const page = context.pages()[0] ?? (await context.newPage());
  const consoleLines = [];
  page.on('console', (line) => consoleLines.push(line.text()));
  page.on('pageerror', (error) => consoleLines.push(`pageerror: ${error.message}`));

  const cdp = await context.newCDPSession(page);
  const preflights = new Map();
  cdp.on('Network.requestWillBeSent', (event) => {
    if (event.initiator?.type === 'preflight') {
      preflights.set(event.requestId, {
        method: event.request.method,
        url: event.request.url,
        requestHeaders: event.request.headers,
        status: null,
      });
    }
  });
  cdp.on('Network.responseReceived', (event) => {
    const seen = preflights.get(event.requestId);
    if (seen) {
      seen.status = event.response.status;
      seen.responseHeaders = event.response.headers;
    }
  });
  await cdp.send('Network.enable');

  await page.goto(plan.pageUrl);
  const results = await page.evaluate((config) => window.runConformance(config), plan.config);
  const browserVersion = context.browser()?.version() ?? null;
  console.log(
    JSON.stringify({ browserVersion, results, preflights: [...preflights.values()], console: consoleLines }),
  );
} finally {
  await context.close();
}
