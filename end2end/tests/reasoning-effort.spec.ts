import { expect, test } from './fixtures/test';
import { ChatPage } from './fixtures/chat-page';

// Issue 20: the user chooses how hard the model thinks, per message. The demo
// model offers off, low, medium and high (medium by default); `off` plays
// only the answer, so the effort visibly reaches the model.

test('the effort control offers the model\'s words, is sent with the message, shown on the block and remembered after a reload', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open();
  const effort = page.getByRole('combobox', { name: 'Reasoning effort' });
  await expect(effort).toBeVisible();
  await expect(effort.locator('option')).toHaveText(['off', 'low', 'medium', 'high']);
  await expect(effort).toHaveValue('medium');

  const sent: unknown[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/api/chat')) sent.push(r.postDataJSON());
  });
  await effort.selectOption('low');
  await chat.send('Why is the sky blue?');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  expect(sent).toHaveLength(1);
  expect((sent[0] as { request: { effort?: string } }).request.effort).toBe('low');
  await expect(chat.header(chat.thinking())).toContainText(/Thought for .*· low effort/);

  // Remembered for this model across a reload, and kept with the turn.
  await page.reload();
  await chat.hydrated();
  await expect(effort).toHaveValue('low');
  await expect(chat.header(chat.thinking())).toContainText(/Thought for .*· low effort/);

  // Off: the model answers without thinking.
  await effort.selectOption('off');
  await chat.send('And sunsets?');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  expect((sent[sent.length - 1] as { request: { effort?: string } }).request.effort).toBe('off');
  await expect(chat.assistant().getByTestId('thinking-block')).toHaveCount(0);
  await expect(chat.assistant().getByTestId('answer')).not.toBeEmpty();
  await chat.expectNoConsoleErrors();
});
