import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';
import { storedText } from './fixtures/stored';

test('reloading mid-turn keeps the partial turn and follows it on to its end, named by its headline', async ({ page }) => {
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
  // What was saved shows at once; the server ran the turn on meanwhile, and
  // the page attaches to it: the turn ends as if nothing happened.
  await expect(turn).toHaveAttribute('data-status', 'done');
  await expect(chat.header(chat.thinking())).toHaveText(/^Thought for \d+s · (Checking the units|Final check)$/);
  await chat.header(chat.thinking()).click();
  await expect(chat.body(chat.thinking())).toContainText('Reading the question');
  await expect(turn.getByTestId('turn-error')).toHaveCount(0);
  await chat.expectNoConsoleErrors();
});
