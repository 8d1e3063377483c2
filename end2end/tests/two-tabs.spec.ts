import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';
import { storedConversations } from './fixtures/stored';

test('two tabs on the same history: the other tab refreshes, nothing is corrupted', async ({ context }) => {
  const a = new ChatPage(await context.newPage());
  const b = new ChatPage(await context.newPage());
  await a.open(MOCKED);
  await b.open(MOCKED);
  await a.send('From tab A mock:normal');
  await expect(a.assistant()).toHaveAttribute('data-status', 'done');
  await expect(b.page.getByTestId('conversation-item')).toContainText(['From tab A']);

  await b.page.getByTestId('new-conversation').click();
  await b.send('From tab B mock:normal');
  await expect(b.assistant()).toHaveAttribute('data-status', 'done');
  await expect(a.page.getByTestId('conversation-item')).toHaveCount(2);
  // Every stored record is readable.
  const records = await storedConversations(a.page);
  expect(records.map((r) => r.conversation.title).sort()).toEqual(['From tab A mock:normal', 'From tab B mock:normal']);
});

test('a tab showing the same conversation follows the turn another tab adds, once it is stored', async ({ context }) => {
  const a = new ChatPage(await context.newPage());
  await a.open(MOCKED);
  await a.send('First question mock:normal');
  await expect(a.assistant()).toHaveAttribute('data-status', 'done');
  const b = new ChatPage(await context.newPage());
  await b.open(MOCKED);
  await expect(b.page.getByTestId('user-text')).toHaveText(['First question mock:normal']);

  await a.send('Second question mock:normal');
  await expect(a.assistant()).toHaveAttribute('data-status', 'done');
  // Tab B reads the new turn from IndexedDB when tab A says it is stored.
  await expect(b.page.getByTestId('user-text')).toHaveText(['First question mock:normal', 'Second question mock:normal']);
  await expect(b.assistant().getByTestId('answer')).toHaveText('Here is the answer: 42.');
});

test('in a browser without BroadcastChannel the other tab still follows, through the list written after each save', async ({ context }) => {
  // The stories above follow through the channel alone: with a channel, the
  // list's storage event is not listened to, so they fail if saves stop
  // announcing. Here there is no channel, and that event is the only word.
  await context.addInitScript(() => {
    delete (window as unknown as { BroadcastChannel?: unknown }).BroadcastChannel;
  });
  const a = new ChatPage(await context.newPage());
  const b = new ChatPage(await context.newPage());
  await a.open(MOCKED);
  await b.open(MOCKED);
  expect(await b.page.evaluate(() => 'BroadcastChannel' in window)).toBe(false);
  await a.send('Without a channel mock:normal');
  await expect(a.assistant()).toHaveAttribute('data-status', 'done');
  await expect(b.page.getByTestId('conversation-item')).toContainText(['Without a channel']);
});
