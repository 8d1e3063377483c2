import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED, MOCK_UPSTREAM } from './fixtures/chat-page';

test('a connection lost mid-thinking freezes the timer, keeps the reasoning, and offers Retry', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('mock:drop-thinking');
  const turn = chat.assistant();
  await expect(turn).toHaveAttribute('data-status', 'error');
  await expect(chat.header(chat.thinking())).toHaveText(/^Stopped after \d+s$/);
  await expect(turn.getByTestId('turn-error')).toContainText('broke off');
  // It was open while streaming and stays open: the reasoning so far is readable.
  await expect(chat.header(chat.thinking())).toHaveAttribute('aria-expanded', 'true');
  await expect(chat.body(chat.thinking())).toContainText('Let me think');
  await expect(chat.composer).toBeEnabled();

  // Retry replaces the failed turn with a new attempt: a second request for the
  // same question goes out, and its turn (not the old one) is what shows. The
  // old turn's element is marked first: if Retry did nothing it would stay.
  const sent: string[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/api/chat')) sent.push(r.postData() ?? '');
  });
  await turn.evaluate((el) => el.setAttribute('data-before-retry', ''));
  await turn.getByTestId('retry').click();
  await expect.poll(() => sent.length).toBe(1);
  expect(sent[0]).toContain('mock:drop-thinking');
  await expect(page.locator('[data-before-retry]')).toHaveCount(0);
  await expect(page.getByTestId('assistant-message')).toHaveCount(1);
  await expect(chat.assistant()).toHaveAttribute('data-status', 'error');
  await expect(chat.body(chat.thinking())).toContainText('Let me think');
});

test('Stop closes the upstream request and the composer is usable at once', async ({ page, request }) => {
  const before = await (await request.get(`${MOCK_UPSTREAM}/_mock/stats`)).json();
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('mock:huge');
  await expect(chat.header(chat.thinking())).toHaveText(/Thinking…/);
  await page.getByTestId('stop').click();
  // The provider request closes within 1 s of Stop (the mock counts it).
  await expect
    .poll(async () => (await (await request.get(`${MOCK_UPSTREAM}/_mock/stats`)).json()).closed_early, {
      timeout: 1_000,
      intervals: [50],
    })
    .toBeGreaterThan(before.closed_early);
  await expect(chat.composer).toBeEnabled();
  await expect(chat.header(chat.thinking())).toHaveText(/^Stopped after \d+s$/);
  await expect
    .poll(async () => (await (await request.get(`${MOCKED}/healthz`)).json()).active_turns, { timeout: 1_000 })
    .toBe(0);
});

test('closing the tab mid-turn cancels nothing: the server runs the turn to its end, then holds no turn', async ({
  context,
  request,
}) => {
  const before = await (await request.get(`${MOCK_UPSTREAM}/_mock/stats`)).json();
  const page = await context.newPage();
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('Close the tab on me mock:paced-30');
  await expect(chat.header(chat.thinking())).toHaveText(/Thinking…/);
  await page.close();
  // Still running without a page (a page may come back for it).
  expect((await (await request.get(`${MOCKED}/healthz`)).json()).active_turns).toBeGreaterThan(0);
  await expect
    .poll(async () => (await (await request.get(`${MOCKED}/healthz`)).json()).active_turns, { timeout: 30_000 })
    .toBe(0);
  // It ended by itself: the provider's stream was read to its end, not closed early.
  const after = await (await request.get(`${MOCK_UPSTREAM}/_mock/stats`)).json();
  expect(after.closed_early).toBe(before.closed_early);
});
