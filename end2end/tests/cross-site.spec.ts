import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from '@playwright/test';
import { chromiumLaunch } from '../chromium';
import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED, MOCK_UPSTREAM } from './fixtures/chat-page';

// Another web site the user visits tries to run turns on the operator's key
// (docs/security.md). The attacker's page is served from a second local
// origin (a tiny server started here, reached as localhost: another site
// than 127.0.0.1) and posts to the mocked Pensive, whose upstream records
// every request that reaches it.

const ATTACKER_PORT = 3150;
const ATTACKER = `http://localhost:${ATTACKER_PORT}`;
const TARGET = `${MOCKED}/api/chat`;

/** A turn body whose user message carries `marker`, to find it in the upstream's record. */
const turnBody = (marker: string) =>
  JSON.stringify({ request: { model: 'mock-responses', messages: [{ role: 'user', content: `mock:normal ${marker}` }] } });

// The attack page: a no-cors fetch with a text/plain JSON body (no preflight
// needed), and a form whose text/plain encoding spells a JSON body too.
const formName = `{"request":{"model":"mock-responses","messages":[{"role":"user","content":"mock:normal attacker-form"}],"pad":"`;
const attackPage = `<!DOCTYPE html><html><head><title>Free prizes</title></head><body>
<h1>Free prizes</h1>
<form id="attack" method="post" action="${TARGET}" enctype="text/plain">
  <input type="hidden" name='${formName}' value='"}}'>
</form>
</body></html>`;

let attacker: http.Server;

test.beforeAll(async () => {
  attacker = http.createServer((_, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(attackPage);
  });
  await new Promise<void>((resolve) => attacker.listen(ATTACKER_PORT, '127.0.0.1', resolve));
  expect((attacker.address() as AddressInfo).port).toBe(ATTACKER_PORT);
});

test.afterAll(async () => {
  await new Promise((resolve) => attacker.close(resolve));
});

/** The user messages of every request the mock upstream has received. */
async function upstreamRecord(request: import('@playwright/test').APIRequestContext): Promise<string> {
  const response = await request.get(`${MOCK_UPSTREAM}/_mock/requests`);
  expect(response.ok()).toBe(true);
  return response.text();
}

test('a page on another site cannot start a turn, by fetch or by form', async ({ page, request }) => {
  await page.goto(`${ATTACKER}/`);
  await expect(page.getByRole('heading', { name: 'Free prizes' })).toBeVisible();

  // fetch(no-cors, text/plain): the browser sends it without asking; the answer is opaque.
  const kind = await page.evaluate(
    async ([url, body]) => (await fetch(url, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body })).type,
    [TARGET, turnBody('attacker-fetch')] as const,
  );
  expect(kind).toBe('opaque');

  // A form post navigates the tab to Pensive, which refuses it. (Were the
  // turn to run, its NDJSON would arrive as a download and the tab would stay.)
  await page.locator('#attack').evaluate((form: HTMLFormElement) => form.submit());
  await page.waitForURL(TARGET, { waitUntil: 'commit', timeout: 10_000 });
  await expect(page.locator('body')).toHaveText('Requests from other web sites are refused.');

  // Pensive's own page still runs a turn through the same route, to its end:
  // requests made before it had every chance to reach the upstream first.
  await new ChatPage(page).open(MOCKED);
  const own = await page.evaluate(
    async ([url, body]) => {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return { status: response.status, text: await response.text() };
    },
    [TARGET, turnBody('own-page')] as const,
  );
  expect(own.status).toBe(200);
  expect(own.text).toContain('"type":"done"');

  const record = await upstreamRecord(request);
  expect(record).toContain('own-page');
  expect(record).not.toContain('attacker-fetch');
  expect(record).not.toContain('attacker-form');
});

test('a DNS-rebinding page under its own host name cannot use the API', async ({ request }) => {
  // The attacker's name now resolves to this machine: to the browser, Pensive
  // *is* the attacker's origin, so it could read the answers, but the name is
  // not one Pensive answers to.
  const browser = await chromium.launch({
    ...chromiumLaunch,
    args: [...chromiumLaunch.args, '--host-resolver-rules=MAP rebind.attacker.test 127.0.0.1'],
  });
  try {
    const page = await browser.newPage();
    const port = new URL(MOCKED).port;
    // The attacker's page is Pensive's own page, served under the attacker's name.
    await page.goto(`http://rebind.attacker.test:${port}/`);
    const answer = await page.evaluate(async (body) => {
      const response = await fetch('/api/chat', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return { status: response.status, text: await response.text() };
    }, turnBody('attacker-rebinding'));
    expect(answer.status).toBe(403);
    expect(answer.text).not.toContain('thinking');
  } finally {
    await browser.close();
  }
  expect(await upstreamRecord(request)).not.toContain('attacker-rebinding');
});
