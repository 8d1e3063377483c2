import * as fs from 'fs';
import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';

// Issue 30: a cut answer says so and can go on (item 5), every turn names
// the model that wrote it (item 6), and Answer now works on a reasoning
// longer than a message (item 7).

type ChatBody = { request: { continue_answer?: boolean; reasoning_so_far?: string; effort?: string } };

test('An answer cut at the length limit says so, keeps saying it after a reload, and Continue finishes it', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await page.getByTestId('model-picker').selectOption('mock-claude');
  const chats: ChatBody[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/api/chat')) chats.push(r.postDataJSON());
  });
  await chat.send('Why is the sky blue at sunset? mock:cut-off');
  const turn = chat.assistant();
  await expect(turn).toHaveAttribute('data-status', 'done');
  const answer = turn.getByTestId('answer');
  await expect(answer).toContainText('At sunset the light crosses');
  await expect(turn.getByTestId('cut-off')).toHaveText('Cut off at the length limit (16,000 tokens)');
  await expect(turn.getByTestId('continue')).toBeVisible();

  // A reload keeps the state: the note and the button are still there.
  await page.reload();
  await chat.hydrated();
  await expect(chat.assistant().getByTestId('cut-off')).toHaveText('Cut off at the length limit (16,000 tokens)');
  await expect(chat.assistant().getByTestId('answer')).not.toContainText('the reds remain');
  await chat.assistant().getByTestId('continue').click();

  // The rest joins the same answer; the note and the button go.
  await expect(chat.assistant().getByTestId('answer')).toContainText(
    'At sunset the light crosses more air, and the reds remain.',
  );
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('cut-off')).toHaveCount(0);
  await expect(chat.assistant().getByTestId('continue')).toHaveCount(0);
  await expect(chat.assistant().getByTestId('answer')).toHaveCount(1);
  const continued = chats.filter((c) => c.request.continue_answer);
  expect(continued).toHaveLength(1);

  // Both exports carry what happened; the Markdown says who answered.
  const [md] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-markdown').click()]);
  const markdown = fs.readFileSync((await md.path())!, 'utf8');
  expect(markdown).toContain('more air, and the reds remain.');
  expect(markdown).toContain('*Mock Claude*');
  await chat.expectNoConsoleErrors();
});

test('Each turn names the model that wrote it, after a switch of model and after a reload', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await page.getByTestId('model-picker').selectOption('mock-chat');
  await chat.send('First question mock:normal');
  await expect(chat.assistant(0)).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant(0).getByTestId('turn-model')).toHaveText('Mock (chat completions)');

  await page.getByTestId('model-picker').selectOption('mock-gemini');
  await chat.send('Second question mock:normal');
  await expect(chat.assistant(1)).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant(1).getByTestId('turn-model')).toHaveText('Mock Gemini');
  await expect(chat.assistant(0).getByTestId('turn-model')).toHaveText('Mock (chat completions)');

  await page.reload();
  await chat.hydrated();
  await expect(chat.assistant(0).getByTestId('turn-model')).toHaveText('Mock (chat completions)');
  await expect(chat.assistant(1).getByTestId('turn-model')).toHaveText('Mock Gemini');
  const [json] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
  const exported = fs.readFileSync((await json.path())!, 'utf8');
  expect(exported).toContain('"model":{"id":"mock-chat","label":"Mock (chat completions)"}');
  expect(exported).toContain('"model":{"id":"mock-gemini","label":"Mock Gemini"}');
  await chat.expectNoConsoleErrors();
});

test('Answer now on a reasoning longer than a message sends its end and gets the answer', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await page.getByTestId('model-picker').selectOption('mock-chat');
  const chats: ChatBody[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/api/chat')) chats.push(r.postDataJSON());
  });
  // 300,000 characters of reasoning, then a long pause.
  await chat.send('Think it all through. mock:long-reasoning-pause');
  const block = chat.thinking();
  await expect(chat.body(block)).toContainText('Last step: the answer is ready.', { timeout: 30_000 });
  await expect(chat.assistant().getByTestId('answer')).toHaveCount(0);
  await block.getByTestId('answer-now').click();

  await expect(chat.assistant().getByTestId('answer')).toHaveText('Answered at once: blue.');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('turn-error')).toHaveCount(0);
  await expect(chat.header(block)).toHaveText(/^Cut short after \d+s/);
  expect(chats).toHaveLength(2);
  const sent = chats[1].request.reasoning_so_far ?? '';
  expect(sent.length).toBeLessThanOrEqual(200_000);
  expect(sent.endsWith('Last step: the answer is ready.')).toBe(true);
  await chat.expectNoConsoleErrors();
});
