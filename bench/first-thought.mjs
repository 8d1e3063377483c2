// How long until a newcomer sees the first thought: waits for a Pensive server
// at URL (started alongside, e.g. by `make run`), opens the page in Debian's
// Chromium, asks the demo model a question, and prints (seconds from its own
// start) when the server answered, the page hydrated, the first thought showed
// and the answer finished with its formula rendered (the renderer worker ran).
// Usage: node bench/first-thought.mjs http://127.0.0.1:3400 [timeout minutes]
// (end2end/node_modules: `make setup-browser`). Used for docs/build-times.md.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(fileURLToPath(new URL('../end2end/package.json', import.meta.url)));
const { chromium } = require('@playwright/test');
// As end2end/chromium.ts launches it.
const chromiumLaunch = {
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
};

const url = process.argv[2] ?? 'http://127.0.0.1:3400';
const deadline = Date.now() + Number(process.argv[3] ?? 60) * 60_000;
const t0 = Date.now();
const at = () => Math.round((Date.now() - t0) / 100) / 10;
const times = {};

for (;;) {
  try {
    if ((await fetch(url)).ok) break;
  } catch {}
  if (Date.now() > deadline) throw new Error(`no server at ${url}`);
  await new Promise((r) => setTimeout(r, 500));
}
times.serving = at();

const browser = await chromium.launch(chromiumLaunch);
const page = await browser.newPage();
const errors = [];
page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
page.on('pageerror', (e) => errors.push(String(e)));
await page.goto(url + '/');
await page.locator('body[data-hydrated="true"]').waitFor({ state: 'attached', timeout: 60_000 });
times.hydrated = at();
await page.getByTestId('composer').fill('How far does light travel in a minute?');
await page.getByTestId('composer').press('Enter');
const turn = page.getByTestId('assistant-message').last();
const block = turn.getByTestId('thinking-block').first();
await block.waitFor({ timeout: 60_000 });
await page.waitForFunction(
  () => (document.querySelector('[data-testid="thinking-block"]')?.textContent ?? '').includes('The user'),
  null,
  { timeout: 60_000 },
);
times.first_thought = at();
await turn.and(page.locator('[data-status="done"]')).waitFor({ timeout: 120_000 });
const answer = turn.getByTestId('answer');
await answer.locator('math').first().waitFor({ timeout: 30_000 });
times.answer_done = at();
const result = {
  url,
  times,
  thinking_header: (await block.locator('button.thinking-header').innerText()).trim(),
  answer_formulas: await answer.locator('math').count(),
  answer_math_errors: await answer.locator('code.math-error').count(),
  console_errors: errors,
};
console.log(JSON.stringify(result, null, 2));
await browser.close();
if (result.answer_formulas < 1 || result.answer_math_errors > 0 || errors.length) process.exit(1);
