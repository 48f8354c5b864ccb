// Drives the playground page in headless Chromium (playwright-core) the way a
// person would, by keyboard where it matters, and reports what the page showed.
//
// Reads a plan (JSON) on stdin: executablePath, args, userDataDir, baseUrl,
// locale, screenshot (a path or null). Prints a report (JSON) on stdout.
import { chromium } from 'playwright-core';
import { readPlan } from './plan.mjs';

const plan = await readPlan();
const context = await chromium.launchPersistentContext(plan.userDataDir, {
  executablePath: plan.executablePath,
  headless: true,
  args: plan.args,
  locale: plan.locale,
  viewport: { width: 1400, height: 1000 },
});
const report = { console: [], steps: {} };
try {
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (line) => report.console.push(`${line.type()}: ${line.text()}`));
  page.on('pageerror', (error) => report.console.push(`pageerror: ${error.message}`));
  const text = (selector) => page.locator(selector).innerText();
  const attribute = (selector, name) => page.locator(selector).getAttribute(name);
  const present = async (selector) => (await page.locator(selector).count()) > 0;

  // Do something that calls the endpoint once; report what the wire said and
  // what the page showed once it had rendered the answer.
  async function exchange(action) {
    const answered = page.waitForResponse(
      (r) => r.url().endsWith('/api/v1/a2a') && r.request().method() === 'POST',
      { timeout: 60_000 },
    );
    await action();
    const response = await answered;
    await page.waitForFunction(() => !document.querySelector('[aria-busy]'));
    return {
      wire: { status: response.status(), headers: await response.allHeaders() },
      httpStatus: await attribute('#http-status', 'data-status'),
      state: (await present('#task-state')) ? await attribute('#task-state', 'data-state') : null,
      rpcError: (await present('#rpc-error')) ? await attribute('#rpc-error', 'data-code') : null,
      outcome: await text('#outcome'),
      limits: await text('#limits'),
      headersShown: Object.fromEntries(
        await page
          .locator('#limits dd')
          .evaluateAll((nodes) => nodes.map((n) => [n.id.replace('header-', ''), n.textContent])),
      ),
      answer: await text('#answer'),
      taskId: (await present('#task-summary-id')) ? await text('#task-summary-id') : null,
      rawRequest: await text('#raw-request'),
      rawResponse: await text('#raw-response'),
      curl: await text('#snippet-curl'),
      python: await text('#snippet-python'),
    };
  }

  const sendBy = (how) =>
    exchange(async () => {
      if (how === 'keyboard') {
        await page.focus('#message-input');
        await page.keyboard.press('Control+Enter');
      } else {
        await page.click('#send');
      }
    });

  async function chooseSkill(id) {
    await page.focus('#skill');
    await page.selectOption('#skill', id);
  }

  await page.goto(plan.baseUrl + '/');
  await page.waitForSelector('body[data-ready="true"]');

  // Keyboard: the first Tab reaches the skip link, which leads to the message form.
  await page.keyboard.press('Tab');
  const firstFocus = await page.evaluate(() => document.activeElement.className);
  await page.keyboard.press('Enter');
  report.steps.keyboard = {
    firstFocus,
    afterSkip: await page.evaluate(() => document.activeElement.id),
  };

  // The browser's language chooses the page's; the picker changes it.
  report.steps.language = {
    detected: await page.evaluate(() => document.documentElement.lang),
    sendLabel: await text('#send'),
    languages: await page.locator('#language option').evaluateAll((nodes) => nodes.map((n) => n.value)),
  };
  await page.focus('#language');
  await page.selectOption('#language', 'en');
  report.steps.language.after = {
    lang: await page.evaluate(() => document.documentElement.lang),
    sendLabel: await text('#send'),
  };

  report.steps.skills = await page.locator('#skill option').evaluateAll((nodes) => nodes.map((n) => n.value));

  // 1. pope_lookup: the card's first example, sent with Ctrl+Enter.
  await chooseSkill('pope_lookup');
  report.steps.popeExamples = await page.locator('#examples button').allInnerTexts();
  await page.locator('#examples button', { hasText: 'Leo XIV' }).click();
  report.steps.pope = await sendBy('keyboard');

  // 2. liturgical_readings: typed, sent with the button.
  await chooseSkill('liturgical_readings');
  report.steps.readingsDataDisabled = await page.locator('#part-data').isDisabled();
  await page.fill('#message-input', '2026-12-25');
  report.steps.readings = await sendBy('click');

  // 3. document_search: an example, as a data part written by hand.
  await chooseSkill('document_search');
  await page.check('#part-data');
  await page.fill('#message-input', '{"query": "Rerum Novarum", "limit": 3}');
  report.steps.search = await sendBy('click');

  // 4. Past the limit: a 429 whose Retry-After the page shows.
  await chooseSkill('pope_lookup');
  await page.check('#part-text');
  await page.fill('#message-input', 'Gregory the Great');
  report.steps.limited = await sendBy('click');

  if (plan.screenshot) await page.screenshot({ path: plan.screenshot, fullPage: true });

  // 5. tasks/get and tasks/cancel by id (never counted by the limiter).
  report.steps.taskIdField = await page.inputValue('#task-id');
  await page.fill('#history-length', '1');
  report.steps.get = await exchange(() => page.click('#get-task'));
  report.steps.cancel = await exchange(() => page.click('#cancel-task'));

  // 6. Sign in through the built-in OAuth server (PKCE), as a demo user.
  await page.check('#cred-oauth');
  await Promise.all([page.waitForURL(/\/oauth\/authorize/), page.click('#oauth-sign-in')]);
  report.steps.loginPage = { url: page.url(), title: await page.title() };
  await page.check('#plan-organization');
  await Promise.all([
    page.waitForURL((url) => url.pathname === '/' && !url.search.includes('code=')),
    page.click('button[value="approve"]'),
  ]);
  await page.waitForSelector('body[data-ready="true"]');
  await page.waitForFunction(() => document.querySelector('#oauth-sign-out') && !document.querySelector('#oauth-sign-out').hidden);
  report.steps.signedIn = {
    status: await text('#oauth-status'),
    credential: await page.evaluate(() => document.querySelector('input[name="credential"]:checked').value),
    accessToken: await page.evaluate(() => JSON.parse(sessionStorage.getItem('a2a-playground-oauth-session')).accessToken),
  };
  await chooseSkill('saints_of_the_day');
  await page.locator('#examples button', { hasText: '2026-03-19' }).click();
  report.steps.oauthSend = await sendBy('click');

  report.browserVersion = context.browser()?.version() ?? null;
} catch (error) {
  report.error = `${error.stack || error}`;
} finally {
  await context.close();
}
console.log(JSON.stringify(report));
