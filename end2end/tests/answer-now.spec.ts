import * as fs from 'fs';
import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED, MOCK_UPSTREAM } from './fixtures/chat-page';

// Issue 20, item 3: while a block thinks, "Answer now" ends the thinking and
// gets the answer at once. llama.cpp ends it inside the running stream
// (its reasoning control); every other provider is asked again at the
// model's weakest effort with the reasoning so far. Either way the block
// reads "Cut short after Ns": in the page, after a reload and in exports.

type ChatBody = { request: { effort?: string; turn_id?: string; reasoning_so_far?: string } };

test('Answer now on a provider without a control asks again at its weakest effort and keeps the reasoning so far', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open();
  const chats: ChatBody[] = [];
  const answerNows: unknown[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/api/chat')) chats.push(r.postDataJSON());
    if (r.url().endsWith('/api/answer_now')) answerNows.push(r.postDataJSON());
  });
  await chat.send('Why is the sky blue?');

  const block = chat.thinking();
  const answerNow = block.getByTestId('answer-now');
  await expect(answerNow).toBeVisible();
  // The first reasoning is on screen; no answer yet, so one can only come from the button.
  await expect(chat.body(block)).toContainText('The user asks');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'thinking');
  await expect(chat.assistant().getByTestId('answer')).toHaveCount(0);
  await answerNow.click();

  await expect(chat.header(block)).toHaveText(/^Cut short after \d+s · medium effort/);
  await expect(answerNow).toHaveCount(0);
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(chat.assistant().getByTestId('answer')).toContainText("Pensive's built-in demo model");
  await expect(chat.assistant().getByTestId('answer')).toContainText('a short answer to Why is the sky blue?.');
  // The demo's reasoning ends with "Planning the answer": it never got there.
  await expect(chat.body(block)).not.toContainText('Planning the answer');
  await expect(chat.assistant().getByTestId('thinking-block')).toHaveCount(1);
  await expect(chat.assistant().getByTestId('turn-stopped')).toHaveCount(0);

  // What went over the wire: the turn named by its id, then asked again with
  // the reasoning so far at the demo's weakest effort (off), under a new id.
  expect(answerNows).toEqual([{ turn_id: chats[0].request.turn_id }]);
  expect(chats).toHaveLength(2);
  expect(chats[1].request.effort).toBe('off');
  expect(chats[1].request.reasoning_so_far).toContain('The user asks');
  expect(chats[1].request.turn_id).not.toBe(chats[0].request.turn_id);

  // After a reload the block still says it was cut short, and so does the export.
  await page.reload();
  await chat.hydrated();
  await expect(chat.header(chat.thinking())).toHaveText(/^Cut short after \d+s · medium effort/);
  await expect(chat.assistant().getByTestId('answer')).toContainText("Pensive's built-in demo model");
  const [md] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-markdown').click()]);
  const markdown = fs.readFileSync((await md.path())!, 'utf8');
  expect(markdown).toMatch(/<details><summary>Cut short after \d+s/);
  await chat.expectNoConsoleErrors();
});

test('Answer now on llama.cpp ends the thinking inside the running stream', async ({ page, request }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await page.getByTestId('model-picker').selectOption('mock-llamacpp');
  let chatCalls = 0;
  page.on('request', (r) => {
    if (r.url().endsWith('/api/chat')) chatCalls += 1;
  });
  // 40 steps of reasoning, about three seconds at the mock's pace.
  await chat.send('Take your time. mock:long-reasoning');
  const block = chat.thinking();
  await expect(chat.body(block)).toContainText('Step 2:');
  await expect(chat.assistant().getByTestId('answer')).toHaveCount(0);
  const answerNow = block.getByTestId('answer-now');
  await answerNow.click();

  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.header(block)).toHaveText(/^Cut short after \d+s · medium effort/);
  await expect(chat.assistant().getByTestId('answer')).toContainText('Part 6.');
  // The rest of the reasoning was never sent: the model stopped thinking.
  await expect(chat.body(block)).not.toContainText('Step 40:');
  // One stream only: the same request went on with the answer.
  expect(chatCalls).toBe(1);
  const recorded: { path: string; body: { id?: string; action?: string; reasoning_control?: boolean } }[] =
    await (await request.get(`${MOCK_UPSTREAM}/_mock/requests`)).json();
  const control = recorded.filter((r) => r.path === '/v1/chat/completions/control');
  expect(control.length).toBeGreaterThanOrEqual(1);
  expect(control[control.length - 1].body.action).toBe('reasoning_end');
  expect(control[control.length - 1].body.id).toMatch(/^chatcmpl-mock-\d+$/);

  await page.reload();
  await chat.hydrated();
  await expect(chat.header(chat.thinking())).toHaveText(/^Cut short after \d+s · medium effort/);
  await chat.expectNoConsoleErrors();
});

// Item 4: where each block's reasoning comes from, in the header's
// accessible text (its description) and in exports.
test('each block says whether it shows the full reasoning or a summary', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  const picker = page.getByTestId('model-picker');
  await picker.selectOption('mock-responses');
  await chat.send('Summarize your thoughts. mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.header(chat.thinking())).toHaveAccessibleDescription('a summary by the provider');
  await expect(chat.header(chat.thinking())).toHaveText(/^Thought for/);

  await page.getByTestId('new-conversation').click();
  await picker.selectOption('mock-chat');
  await chat.send('Show your work. mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.header(chat.thinking())).toHaveAccessibleDescription('full reasoning');
  const [md] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-markdown').click()]);
  expect(fs.readFileSync((await md.path())!, 'utf8')).toMatch(/<summary>Thought for (\d+s|less than a second) · full reasoning<\/summary>/);

  // Kept with the block: the same after a reload.
  await page.reload();
  await chat.hydrated();
  await expect(chat.header(chat.thinking())).toHaveAccessibleDescription('full reasoning');
  await chat.expectNoConsoleErrors();
});
