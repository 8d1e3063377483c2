import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';

test('copy buttons put the reasoning and the answer on the clipboard', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: MOCKED });
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await page.getByRole('button', { name: 'Copy answer' }).click();
  await expect(page.getByRole('button', { name: 'Copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('Here is the answer: **42**.');
  await chat.header(chat.thinking()).click();
  await page.getByRole('button', { name: 'Copy reasoning' }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('Let me think about this carefully.');
});
