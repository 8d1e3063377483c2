import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';
import net from 'node:net';
import { spawn } from 'node:child_process';

test('shots', async ({ page }) => {
  test.setTimeout(120_000);
  const chat = new ChatPage(page);
  page.on('requestfailed', (r) => console.log('FAILED', r.url(), r.failure()?.errorText));
  page.on('response', (r) => { if (r.url().includes('/api/')) console.log('RESP', r.url(), r.status()); });
  page.on('console', (m) => console.log('CONSOLE', m.type(), m.text().slice(0, 200)));
  await chat.open(MOCKED);
  await chat.send('mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  // The shell before the app loads: hold the WASM back.
  await page.route('**/pkg/*.wasm', () => {});
  for (const [scheme, width] of [['light', 1280], ['dark', 1280], ['light', 375], ['dark', 375]] as const) {
    await page.setViewportSize({ width, height: 740 });
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(`${MOCKED}/`, { waitUntil: 'domcontentloaded' });
    await page.waitForTimeout(500);
    await page.screenshot({ path: `/tmp/shots-c/shell-${scheme}-${width}.png` });
  }
  await page.unroute('**/pkg/*.wasm');
  // The lost connection: a proxy cut.
  const child = spawn('../target/debug/pensive', ['serve'], { env: { PATH: process.env.PATH ?? '', LEPTOS_SITE_ADDR: '127.0.0.1:3152', LEPTOS_SITE_ROOT: '../target/site', LEPTOS_ENV: 'PROD', PENSIVE_DEMO_PACE: '1', PENSIVE_ALLOWED_HOSTS: '127.0.0.1:3159' }, stdio: 'ignore' });
  await expect.poll(async () => { try { return (await fetch('http://127.0.0.1:3152/healthz')).ok; } catch { return false; } }).toBe(true);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((c) => {
    const u = net.connect(3152, '127.0.0.1');
    for (const s of [c, u]) { sockets.add(s); s.on('error', () => {}); s.on('close', () => sockets.delete(s)); }
    c.pipe(u); u.pipe(c);
  });
  await new Promise<void>((r) => server.listen(3159, '127.0.0.1', r));
  for (const [scheme, width] of [['light', 1280], ['dark', 1280], ['light', 375], ['dark', 375]] as const) {
    await page.setViewportSize({ width, height: 740 });
    await page.emulateMedia({ colorScheme: scheme });
    await chat.open('http://127.0.0.1:3159');
    await chat.send('Why is the sky blue?');
    await expect(chat.body(chat.thinking())).toContainText('Identifying');
    sockets.forEach((s) => s.destroy());
    await expect(chat.assistant()).toHaveAttribute('data-status', 'error');
    await page.screenshot({ path: `/tmp/shots-c/lost-${scheme}-${width}.png` });
    await page.evaluate(() => localStorage.clear());
  }
  server.close();
  child.kill('SIGKILL');
});
