import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';

test('slow wasm, first visit', async ({ page }) => {
  const chat = new ChatPage(page);
  page.on('console', async (m) => {
    if (!/hydration error/.test(m.text())) return;
    for (const a of m.args()) console.log('ARG', await a.evaluate((n: any) => (n && n.nodeType ? `${n.nodeName} ${n.outerHTML ?? n.textContent} parent=${n.parentNode?.nodeName}` : String(n).slice(0, 100))));
  });
  await page.route('**/pkg/*.wasm', async (route) => { await new Promise((r) => setTimeout(r, 1500)); await route.continue(); });
  await page.goto(`${MOCKED}/`);
  await chat.hydrated();
  console.log(await page.evaluate(() => document.head.innerHTML.replace(/\(function[\s\S]*?<\/script>/, '...</script>')));
});
