import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';

test('conversations: new, listed newest first, switch, rename, delete with undo', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  const items = page.getByTestId('conversation-item');

  await chat.send('First question mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(items).toHaveCount(1);
  await expect(items.first()).toContainText('First question');

  await page.getByTestId('new-conversation').click();
  await expect(page.getByTestId('assistant-message')).toHaveCount(0);
  await chat.send('Second question mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(items).toHaveCount(2);
  await expect(items.nth(0)).toContainText('Second question');
  await expect(items.nth(1)).toContainText('First question');

  // Switch back: the first conversation's turn is shown, folded, as stored.
  await items.nth(1).locator('.conversation-title').click();
  await expect(page.getByTestId('user-text')).toHaveText(['First question mock:normal']);
  await expect(chat.header(chat.thinking())).toHaveAttribute('aria-expanded', 'false');

  // Rename with the keyboard.
  await items.nth(1).getByTestId('rename').click();
  const input = page.getByTestId('rename-input');
  await input.fill('Renamed chat');
  await input.press('Enter');
  await expect(items.filter({ hasText: 'Renamed chat' })).toHaveCount(1);

  // Delete, then undo.
  await items.filter({ hasText: 'Renamed chat' }).getByTestId('delete').click();
  await expect(items).toHaveCount(1);
  await expect(page.getByTestId('undo-delete')).toContainText('Renamed chat');
  await page.getByTestId('undo-delete').getByRole('button', { name: 'Undo' }).click();
  await expect(items).toHaveCount(2);
  await expect(page.getByTestId('user-text')).toHaveText(['First question mock:normal']);

  // Everything survives a reload.
  await page.reload();
  await chat.hydrated();
  await expect(items).toHaveCount(2);
  await expect(items.filter({ hasText: 'Renamed chat' })).toHaveCount(1);
  await chat.expectNoConsoleErrors();
});

test('at 375 px the sidebar collapses to a menu', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 740 });
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await expect(page.getByTestId('new-conversation')).toBeHidden();
  const toggle = page.getByTestId('menu-toggle');
  await expect(toggle).toBeVisible();
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await expect(page.getByTestId('new-conversation')).toBeVisible();
});
