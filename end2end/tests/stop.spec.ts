import { expect, test } from './fixtures/test';
import { ChatPage } from './fixtures/chat-page';

test('Stop ends the turn mid-thinking: the timer freezes, the reasoning stays, the composer is usable', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open();
  await chat.send('Explain entropy');

  const block = chat.thinking();
  await expect(chat.body(block)).toContainText('Explain entropy');
  await page.getByTestId('stop').click();

  await expect(chat.assistant()).toHaveAttribute('data-status', 'stopped');
  // Stopped just after the demo's first bold headline, the block is named by it.
  await expect(chat.header(block)).toHaveText(/^Stopped after \d+s · medium effort( · Identifying the core question)?$/);
  await expect(chat.body(block)).toContainText('Explain entropy');
  await expect(chat.composer).toBeEnabled();
  const frozen = await chat.header(block).textContent();

  // Nothing more arrives after Stop: the answer never appears.
  await chat.send('Next question');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  expect(await chat.assistant(0).getByTestId('answer').count()).toBe(0);
  await expect(chat.header(chat.thinking(chat.assistant(0)))).toHaveText(frozen!);
  await chat.expectNoConsoleErrors();
});
