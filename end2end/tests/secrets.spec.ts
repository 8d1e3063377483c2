import { expect, test } from './fixtures/test';
import { storedText } from './fixtures/stored';
import { ChatPage, MOCKED, MOCK_UPSTREAM } from './fixtures/chat-page';

// The mocked server's key (playwright.config.ts) and its upstream address
// (pensive-mocked.toml): neither may reach anything the browser can read.
const SENTINEL_KEY = 'sk-SENTINEL-e2e-key-7f3a';
const UPSTREAM = new URL(MOCK_UPSTREAM).host;

test('the API key and upstream address appear in no page, bundle, API answer or error', async ({ page, request }) => {
  const seen: string[] = [];
  const grab = async (path: string, init?: { method: 'POST'; data: unknown }) => {
    const response = init
      ? await request.post(`${MOCKED}${path}`, { data: init.data })
      : await request.get(`${MOCKED}${path}`);
    expect(response.ok(), path).toBe(true);
    const body = await response.body();
    expect(body.length, `${path} has a body`).toBeGreaterThan(0);
    seen.push(JSON.stringify(response.headers()), body.toString('latin1'));
  };
  await grab('/');
  // The bundle the page loads (a content-hashed name: pensive.<hash>.wasm).
  const wasm = seen.join('').match(/\/pkg\/[\w.-]+\.wasm/)?.[0];
  expect(wasm, 'the page names its WASM').toBeTruthy();
  await grab(wasm!);
  await grab('/pkg/pensive.js');
  await grab('/pkg/pensive.css');
  await grab('/api/models', { method: 'POST', data: {} });
  for (const keyword of ['normal', 'http-401', 'http-429', 'malformed', 'drop-answer', 'huge-line']) {
    await grab('/api/chat', {
      method: 'POST',
      data: { request: { model: 'mock-responses', messages: [{ role: 'user', content: `mock:${keyword}` }] } },
    });
  }

  // And what the page itself shows and stores after an error turn.
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('mock:http-401');
  await expect(chat.assistant().getByTestId('turn-error')).toContainText('rejected the API key');
  seen.push(await page.content());
  seen.push(await page.evaluate(() => JSON.stringify({ ...localStorage })));
  seen.push(await storedText(page));

  const all = seen.join('\n');
  expect(all).toContain('mock-responses'); // the collection is real
  expect(all).not.toContain(SENTINEL_KEY);
  expect(all).not.toContain(UPSTREAM);
});
