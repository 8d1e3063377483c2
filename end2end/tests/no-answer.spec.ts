import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';

test('thinking without an answer shows the fallback and keeps the reasoning', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('mock:no-answer');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('empty-outcome')).toHaveText('The model finished thinking without an answer.');
  await expect(chat.assistant()).not.toContainText('empty answer');
  await expect(chat.header(chat.thinking())).toHaveAttribute('aria-expanded', 'true');
  await expect(chat.body(chat.thinking())).toContainText('Let me think');
});

test('Continue after the output limit cut the thinking goes on from the reasoning so far, in the same turn', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  const chats: { request: { continue_answer?: boolean; reasoning_so_far?: string } }[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/api/chat')) chats.push(r.postDataJSON());
  });
  await chat.send('A hard one. mock:no-answer');
  const turn = chat.assistant();
  await expect(turn).toHaveAttribute('data-status', 'done');
  await turn.getByTestId('continue').click();
  await expect(page.getByTestId('status')).toHaveText('Continuing from the reasoning so far');
  await expect(turn).toHaveAttribute('data-status', 'done');
  await expect(turn.getByTestId('answer')).toHaveText('Here is the answer: 42.');
  // One turn: its first reasoning, then the rest, then the answer.
  await expect(page.getByTestId('assistant-message')).toHaveCount(1);
  await expect(chat.body(chat.thinking(turn))).toContainText('Let me think');
  await expect(turn.getByTestId('continue')).toHaveCount(0);
  const continued = chats.filter((c) => c.request.continue_answer);
  expect(continued).toHaveLength(1);
  expect(continued[0].request.reasoning_so_far).toContain('Then, what follows from them.');
  await chat.expectNoConsoleErrors();
});
