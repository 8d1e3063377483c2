import { expect, test } from './fixtures/test';
import { ChatPage } from './fixtures/chat-page';

test('finished paragraphs are rendered once: streaming only re-renders the unfinished tail', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open();
  await chat.send('Why is the sky blue?');
  const body = chat.body(chat.thinking());
  await expect(body).toContainText('Identifying the core question');
  const done = body.locator('.md-done > *').first();
  await expect(done).toBeAttached();
  // Tag the first finished paragraph's DOM node; it must survive later chunks.
  await done.evaluate((el) => ((el as any).__pensiveMark = 'kept'));
  await expect(body).toContainText('Planning the answer');
  expect(await body.locator('.md-done > *').first().evaluate((el) => (el as any).__pensiveMark)).toBe('kept');
  // And the rendered result is the whole reasoning, in order.
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await chat.header(chat.thinking()).click();
  // Unfolded, it catches up with anything that arrived while folded.
  await expect(body).toContainText('Planning the answer');
  const text = await body.evaluate((el) => el.textContent ?? '');
  expect(text).toMatch(/Identifying the core question[\s\S]*Planning the answer/);
});
