// Signs in on the server's OAuth login page in headless Chromium (driven by
// playwright-core), as a person would: opens the authorization URL, types the
// API token into the labelled field, presses "Allow", and reports where the
// browser was sent back to (the client's redirect URI, answered here so no
// listener is needed) and whether the page ran any script.
//
// Reads a plan (JSON) on stdin: executablePath, args, userDataDir,
// authorizationUrl, redirectUri, apiToken. Prints a report (JSON).
import { chromium } from 'playwright-core';
import { readPlan } from './plan.mjs';

const plan = await readPlan();
const context = await chromium.launchPersistentContext(plan.userDataDir, {
  executablePath: plan.executablePath,
  headless: true,
  args: plan.args,
  javaScriptEnabled: false,
});
try {
  const page = context.pages()[0] ?? (await context.newPage());
  const outside = [];
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(plan.origin) && !url.startsWith(plan.redirectUri)) outside.push(url);
  });
  const opened = await page.goto(plan.authorizationUrl);
  const title = await page.title();
  const heading = await page.getByRole('heading', { level: 1 }).innerText();
  await page.getByLabel('Your API token').fill(plan.apiToken);
  const back = page.waitForURL(`${plan.redirectUri}**`);
  await page.getByRole('button', { name: 'Allow' }).click();
  await back;
  console.log(
    JSON.stringify({
      status: opened.status(),
      title,
      heading,
      redirectedTo: page.url(),
      outside,
    }),
  );
} finally {
  await context.close();
}
