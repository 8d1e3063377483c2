import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';

// This spec provokes violations on purpose; every other spec fails on any.
test.use({ expectCspViolations: true });

type Probe = { __violations: string[]; __injected?: boolean; __handler?: boolean };

/** Records every `securitypolicyviolation`'s directive in `window.__violations`. */
async function recordViolations(page: import('@playwright/test').Page) {
  await page.evaluate(() => {
    const w = window as unknown as Probe;
    w.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__violations.push(e.effectiveDirective));
  });
}

const violations = (page: import('@playwright/test').Page) =>
  page.evaluate(() => (window as unknown as Probe).__violations);

test('the app hydrates under a nonce CSP that refuses any other inline script', async ({ page }) => {
  const response = await page.goto('/');
  const policy = response?.headers()['content-security-policy'] ?? '';
  expect(policy).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9_-]+' 'wasm-unsafe-eval'/);
  expect(policy).not.toContain('unsafe-inline');
  // Images from the site only: nothing in the app uses data: or blob: images.
  expect(policy).toContain("img-src 'self';");
  expect(policy).not.toMatch(/data:|blob:/);

  // Hydration ran: the nonce'd bootstrap and the WASM were allowed.
  const chat = new ChatPage(page);
  await chat.hydrated();

  // Script injected after load (as an XSS would) is refused and reported; so
  // is an inline handler. Under Trusted Types the browser refuses the script's
  // text and the handler's string before the nonce rule is even asked.
  await recordViolations(page);
  await page.evaluate(() => {
    const script = document.createElement('script');
    script.append(document.createTextNode('window.__injected = true'));
    document.body.append(script);
    const img = document.createElement('img');
    try {
      img.setAttribute('onerror', 'window.__handler = true');
    } catch {
      // Refused (a TypeError), and reported.
    }
    img.src = '/no-such-image.png';
    document.body.append(img);
  });
  const refused = /script-src-elem|script-src-attr|require-trusted-types-for/;
  await expect.poll(async () => (await violations(page)).filter((d) => refused.test(d)).length).toBeGreaterThanOrEqual(2);
  const ran = await page.evaluate(() => {
    const w = window as unknown as Probe;
    return { injected: w.__injected ?? false, handler: w.__handler ?? false };
  });
  expect(ran).toEqual({ injected: false, handler: false });
});

test('HTML sinks take only the markdown renderer output: a raw string is refused, and no other policy can be made', async ({
  page,
  cspViolations,
}) => {
  const response = await page.goto(`${MOCKED}/`);
  const policy = response?.headers()['content-security-policy'] ?? '';
  expect(policy).toContain("require-trusted-types-for 'script'; trusted-types pensive-markdown pensive-restore");
  const chat = new ChatPage(page);
  await chat.hydrated();

  // The renderer's output goes in, streamed under the policy.
  await chat.send('Render this mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('answer').locator('strong')).toHaveText('42');
  expect(cspViolations, 'the app itself violates nothing').toEqual([]);

  // Injected script (as an XSS would run) cannot put its own HTML in, nor
  // make a policy of its own: not the app's name, not `default`, not another.
  await recordViolations(page);
  const outcome = await page.evaluate(() => {
    const holder = document.createElement('div');
    document.body.append(holder);
    const attempt = (f: () => unknown) => {
      try {
        f();
        return 'accepted';
      } catch (e) {
        return e instanceof TypeError ? 'refused' : String(e);
      }
    };
    const tt = (window as unknown as { trustedTypes: { createPolicy(n: string, o: object): unknown } }).trustedTypes;
    const identity = { createHTML: (s: string) => s };
    return {
      innerHTML: attempt(() => (holder.innerHTML = '<img src=x onerror="window.__handler = true">')),
      insertAdjacentHTML: attempt(() => holder.insertAdjacentHTML('beforeend', '<b>raw</b>')),
      fragment: attempt(() => holder.append(document.createRange().createContextualFragment('<b>raw</b>'))),
      samePolicy: attempt(() => tt.createPolicy('pensive-markdown', identity)),
      // Claimed by the reload snapshot's script on every load, snapshot or not.
      restorePolicy: attempt(() => tt.createPolicy('pensive-restore', identity)),
      defaultPolicy: attempt(() => tt.createPolicy('default', identity)),
      otherPolicy: attempt(() => tt.createPolicy('attacker', identity)),
      children: holder.childNodes.length,
    };
  });
  expect(outcome).toEqual({
    innerHTML: 'refused',
    insertAdjacentHTML: 'refused',
    fragment: 'refused',
    samePolicy: 'refused',
    restorePolicy: 'refused',
    defaultPolicy: 'refused',
    otherPolicy: 'refused',
    children: 0,
  });
  await expect
    .poll(() => violations(page))
    .toEqual(expect.arrayContaining(['require-trusted-types-for', 'trusted-types']));
  // The suite-wide watcher saw them too, so any other spec would fail on one.
  await expect.poll(() => cspViolations.join('\n')).toContain('require-trusted-types-for');
  expect(await page.evaluate(() => (window as unknown as Probe).__handler)).toBeUndefined();

  // The app keeps rendering after the refusals.
  await chat.send('Again mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('answer').locator('strong')).toHaveText('42');
});
