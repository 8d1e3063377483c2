// The browser half of scripts/test-dev-server.sh: opens the dev server's page
// in Debian's Chromium, waits for the renderer's Web Worker to be ready
// (body[data-renderer="ready"]), asks the demo model a question and waits for
// its answer's inline formula ($e^{i\pi} + 1 = 0$, src/server/mock/scripted.rs)
// to be MathML. Exits 0 when both hold, 1 otherwise.
// Usage: node scripts/test-dev-server.mjs http://127.0.0.1:PORT
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const url = process.argv[2];
if (!url) {
  console.error('usage: node scripts/test-dev-server.mjs URL');
  process.exit(2);
}
// The Playwright runner end2end/ installs (`make setup-browser`).
const require = createRequire(fileURLToPath(new URL('../end2end/package.json', import.meta.url)));
const { chromium } = require('@playwright/test');

// As end2end/chromium.ts: Debian's Chromium, no background fetches.
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const started = Date.now();
const step = (what) => console.log(`dev-server check: ${what} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
let ok = false;
try {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(String(err)));
  await page.goto(`${url}/`);
  await page.locator('body[data-hydrated="true"]').waitFor({ state: 'attached', timeout: 30_000 });
  step('hydrated');
  await page.locator('body[data-renderer="ready"]').waitFor({ state: 'attached', timeout: 30_000 });
  step('renderer ready');
  const composer = page.getByTestId('composer');
  await composer.fill('Why is the sky blue?');
  await composer.press('Enter');
  const answer = page.getByTestId('assistant-message').last().getByTestId('answer');
  const inline = answer.locator('math:not([display="block"])').first();
  await inline.waitFor({ state: 'attached', timeout: 60_000 });
  const formula = await inline.textContent();
  step(`formula rendered: ${formula}`);
  if (!/e.*i.*π.*1.*=.*0/.test(formula ?? '')) throw new Error(`unexpected formula: ${formula}`);
  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  ok = true;
} catch (err) {
  console.error(`dev-server check failed: ${err.message ?? err}`);
} finally {
  await browser.close();
}
process.exit(ok ? 0 : 1);
