import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';

// A browser that blocks site data (or a sandboxed frame) throws a SecurityError
// on every read of window.localStorage. The app says so once and keeps working:
// turns run, the preference still applies to this page, nothing throws.
test('with storage blocked, the user is told history will not be kept, and chatting still works', async ({ page }) => {
  await page.addInitScript(() => {
    Object.defineProperty(window, 'localStorage', {
      configurable: true,
      get() {
        throw new DOMException('The operation is insecure.', 'SecurityError');
      },
    });
    // Blocking site data blocks IndexedDB too.
    Object.defineProperty(window, 'indexedDB', {
      configurable: true,
      get() {
        throw new DOMException('The operation is insecure.', 'SecurityError');
      },
    });
  });
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await expect(page.getByTestId('notice')).toContainText('Browser storage is unavailable: history will not be kept.');

  await page.getByTestId('fold-preference').selectOption('open');
  await chat.send('Still works mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('answer')).toHaveText('Here is the answer: 42.');
  await expect(chat.header(chat.thinking())).toHaveAttribute('aria-expanded', 'true');
  // Each failed save says the same thing: still one notice, not one per save.
  await expect(page.getByTestId('notice')).toHaveCount(1);
  await chat.expectNoConsoleErrors();
});
