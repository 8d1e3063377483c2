import { expect, test } from './fixtures/test';
import { ChatPage } from './fixtures/chat-page';

/**
 * The renderer is a WebAssembly module of its own, fetched right after
 * hydration (src/app/lazy_renderer/mod.rs). If it cannot load, nothing the model
 * says is lost: reasoning and answer show as plain text, as written, and
 * stream as they arrive, each frame adding only what the text grew by.
 */
test('without the renderer module, the answer streams as plain text and nothing is lost', async ({ page }) => {
  await page.route(/\/pensive_render[^/]*$/, (route) => route.abort());
  const chat = new ChatPage(page);
  await chat.open();
  await expect(page.locator('body[data-renderer="failed"]')).toBeAttached();

  await chat.send('Why is the sky blue?');
  const turn = chat.assistant();
  const tail = turn.getByTestId('answer').locator('.md-tail');
  await expect(tail).toContainText('Here is a short answer');
  // The first piece shown stays the same node while the rest is appended.
  await tail.evaluate((el) => ((window as any).__firstPiece = el.firstChild));
  await expect(turn).toHaveAttribute('data-status', 'done');

  const answer = await tail.evaluate((el) => el.textContent ?? '');
  expect(answer).toContain("**Pensive's built-in demo model**");
  expect(answer).toContain('```rust');
  expect(await tail.evaluate((el) => el.childNodes.length)).toBeGreaterThan(1);
  expect(await tail.evaluate((el) => el.firstChild === (window as any).__firstPiece)).toBe(true);
  // No markup from the text reached the page.
  expect(await turn.getByTestId('answer').locator('strong, pre, math').count()).toBe(0);

  // After a reload (still without the module) the whole turn is there.
  await page.reload();
  await chat.hydrated();
  await expect(page.locator('body[data-renderer="failed"]')).toBeAttached();
  await expect(chat.assistant().getByTestId('answer')).toContainText("**Pensive's built-in demo model**");
  await expect(chat.header(chat.thinking())).toContainText('Thought for');
});

test('a renderer worker that never says it is ready is given up on: the answer shows as plain text', async ({ page }) => {
  // A worker script that loads and then says nothing, ever.
  await page.route(/\/pkg\/render_worker\.js$/, (route) =>
    route.fulfill({ contentType: 'text/javascript', body: '// never ready\n' }),
  );
  await page.addInitScript(() => {
    (window as any).__pensiveRenderTest = { loadDeadlineMs: 1500 };
  });
  const chat = new ChatPage(page);
  await chat.open();
  await expect(page.locator('body[data-renderer="failed"]')).toBeAttached();
  await chat.send('Why is the sky blue?');
  const turn = chat.assistant();
  await expect(turn).toHaveAttribute('data-status', 'done');
  await expect(turn.getByTestId('answer')).toContainText("**Pensive's built-in demo model**");
});
