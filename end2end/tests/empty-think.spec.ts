import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';

test('an empty think block never appears, not even for a frame', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await page.evaluate(() => {
    (window as any).__sawThinking = false;
    new MutationObserver(() => {
      const block = document.querySelector('[data-testid="thinking-block"]');
      if (block && (block as HTMLElement).offsetParent !== null) (window as any).__sawThinking = true;
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await chat.send('mock:empty-think');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('answer')).toHaveText('Here is the answer: 42.');
  expect(await page.evaluate(() => (window as any).__sawThinking)).toBe(false);
  await expect(chat.assistant().getByTestId('thinking-block')).toHaveCount(0);
});
