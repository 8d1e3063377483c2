import { expect, test } from './fixtures/test';
import { ChatPage } from './fixtures/chat-page';

// This spec provokes violations on purpose; every other spec fails on any.
test.use({ expectCspViolations: true });

test('the app hydrates under a nonce CSP that refuses any other inline script', async ({ page }) => {
  const response = await page.goto('/');
  const policy = response?.headers()['content-security-policy'] ?? '';
  expect(policy).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9_-]+' 'wasm-unsafe-eval'/);
  expect(policy).not.toContain('unsafe-inline');

  // Hydration ran: the nonce'd bootstrap and the WASM were allowed.
  const chat = new ChatPage(page);
  await chat.hydrated();

  // Script injected after load (as an XSS would) is refused and reported.
  type Probe = { __violations: string[]; __injected?: boolean; __handler?: boolean };
  await page.evaluate(() => {
    const w = window as unknown as Probe;
    w.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__violations.push(e.effectiveDirective));
    const script = document.createElement('script');
    script.textContent = 'window.__injected = true';
    document.body.append(script);
    const holder = document.createElement('div');
    holder.innerHTML = '<img src="data:," onerror="window.__handler = true">';
    document.body.append(holder);
  });
  await expect
    .poll(() => page.evaluate(() => (window as unknown as Probe).__violations))
    .toEqual(expect.arrayContaining(['script-src-elem', 'script-src-attr']));
  const ran = await page.evaluate(() => {
    const w = window as unknown as Probe;
    return { injected: w.__injected ?? false, handler: w.__handler ?? false };
  });
  expect(ran).toEqual({ injected: false, handler: false });
});
