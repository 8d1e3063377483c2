import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';
import { storedText } from './fixtures/stored';

/**
 * `<topic>…</topic>` labels inside reasoning name its block: the latest label
 * shows on the header while the block streams and afterwards, folded or open,
 * and after a reload; the markup itself never shows in the reasoning text.
 */
test('the latest topic label names the thinking block, live, folded, open and after a reload', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  // Any `<topic` markup in a reasoning body, in any frame, is a failure.
  await page.evaluate(() => {
    (window as any).__topicMarkup = '';
    new MutationObserver(() => {
      for (const body of document.querySelectorAll('.thinking-body')) {
        const text = body.textContent ?? '';
        if (/<\/?topic/.test(text)) (window as any).__topicMarkup = text;
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });

  await chat.send('Convert 10 m to feet mock:topic-tags');
  const block = chat.thinking();
  const header = chat.header(block);
  // Streaming, open: the first label, then the later one replaces it.
  await expect(header).toHaveText(/^Thinking… \d+s · Checking the units$/);
  await expect(header).toHaveAttribute('aria-expanded', 'true');
  await expect(header).toHaveText(/^Thinking… \d+s · Writing the answer$/);

  // The answer folds the block; it keeps its name, folded and open.
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('answer')).toContainText('32.8 feet');
  const finished = /^Thought for (\d+s|less than a second) · Writing the answer$/;
  await expect(header).toHaveAttribute('aria-expanded', 'false');
  await expect(header).toHaveText(finished);
  await expect(header).toHaveAccessibleName(/^Thought for (\d+s|less than a second) · Writing the answer$/);
  await header.click();
  await expect(header).toHaveAttribute('aria-expanded', 'true');
  await expect(header).toHaveText(finished);
  const body = chat.body(block);
  await expect(body).toContainText('One metre is about 3.28 feet');
  await expect(body).not.toContainText('<topic>');
  await expect(body).not.toContainText('Writing the answer');
  expect(await page.evaluate(() => (window as any).__topicMarkup)).toBe('');

  // After a reload the stored label names it again.
  await expect
    .poll(() => storedText(page))
    .toContain('"headline":"Writing the answer"');
  await page.reload();
  await chat.hydrated();
  const replayed = chat.header(chat.thinking());
  await expect(replayed).toHaveAttribute('aria-expanded', 'false');
  await expect(replayed).toHaveText(finished);
  await replayed.click();
  await expect(replayed).toHaveAttribute('aria-expanded', 'true');
  await expect(replayed).toHaveText(finished);
  await expect(chat.body(chat.thinking())).toContainText('One metre is about 3.28 feet');
  await expect(chat.body(chat.thinking())).not.toContainText('<topic>');
  await chat.expectNoConsoleErrors();
});
