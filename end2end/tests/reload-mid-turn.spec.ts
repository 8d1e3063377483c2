import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';
import { storedText } from './fixtures/stored';

test('reloading mid-turn keeps the partial turn, shown as interrupted with its reasoning', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('mock:headlines');
  await expect(chat.body(chat.thinking())).toContainText('Converting metres to feet');
  // Saved at most once a second while streaming: wait for a save that holds the text.
  await expect
    .poll(() => storedText(page))
    .toContain('Converting metres');
  await page.reload();
  await chat.hydrated();
  const turn = chat.assistant();
  await expect(turn).toHaveAttribute('data-status', 'stopped');
  // Frozen, and still named by the headline it had when saved.
  await expect(chat.header(chat.thinking())).toHaveText(/^Stopped after \d+s · (Checking the units|Final check)$/);
  await chat.header(chat.thinking()).click();
  await expect(chat.body(chat.thinking())).toContainText('Reading the question');
});
