import { expect, test } from './fixtures/test';
import { ChatPage } from './fixtures/chat-page';

test('thinking streams open with a ticking timer, folds at the answer, toggles, and survives a reload', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open();
  await expect(page.getByTestId('model-badge')).toContainText('Demo model');

  await chat.send('Why is the sky blue?');
  await expect(page.getByTestId('user-text').last()).toHaveText('Why is the sky blue?');
  await expect(chat.composer).toBeDisabled();

  const block = chat.thinking();
  const header = chat.header(block);
  // Streams open, with reasoning visible and the live timer.
  await expect(header).toHaveText(/Thinking… 0s/);
  await expect(header).toHaveAttribute('aria-expanded', 'true');
  await expect(chat.body(block)).toContainText('Why is the sky blue?');
  // The timer ticks.
  await expect(header).toHaveText(/Thinking… [1-9]\d*s/);

  // The first answer token folds it, with the server-measured duration.
  await expect(chat.assistant().getByTestId('answer')).toContainText('Pensive');
  // Named by the reasoning's latest bold headline (issue 11, item 3).
  await expect(header).toHaveText(/^Thought for (\d+s|less than a second) · medium effort( · \d+ tokens)? · Planning the answer$/);
  await expect(header).toHaveAttribute('aria-expanded', 'false');
  await expect(chat.body(block)).toBeHidden();

  // The turn completes; the composer is usable again.
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.composer).toBeEnabled();
  await expect(chat.assistant().getByTestId('answer')).toContainText('The main points');
  const folded = await header.textContent();
  // A new user's first answer shows both kinds of rendering: a formula as MathML
  // (inline and on its own line) and a highlighted code block with its label.
  const answer = chat.assistant().getByTestId('answer');
  await expect(answer.locator('math')).toHaveCount(2);
  await expect(answer.locator('math[display="block"]')).toHaveCount(1);
  await expect(answer.locator('.code-block .code-lang')).toHaveText(['Rust']);
  await expect(answer.locator('.code-block .hl-kw').first()).toHaveText('fn');

  // The user's toggles win.
  await header.click();
  await expect(header).toHaveAttribute('aria-expanded', 'true');
  await expect(chat.body(block)).toBeVisible();
  await expect(chat.body(block)).toContainText('Planning the answer');
  await header.click();
  await expect(header).toHaveAttribute('aria-expanded', 'false');

  // Reload: the turn comes back folded, with its stored duration, no mismatch.
  await page.reload();
  await chat.hydrated();
  const restored = chat.thinking();
  await expect(chat.header(restored)).toHaveText(folded!);
  await expect(chat.header(restored)).toHaveAttribute('aria-expanded', 'false');
  await expect(chat.assistant().getByTestId('answer')).toContainText('The main points');
  await expect(page.getByTestId('user-text')).toHaveText('Why is the sky blue?');
  await expect(chat.assistant().getByTestId('answer').locator('math')).toHaveCount(2);
  await chat.header(restored).click();
  await expect(chat.body(restored)).toContainText('Planning the answer');
  // The reasoning's own formulas render too ($r$, $t$ and $d = r \cdot t$).
  await expect(chat.body(restored).locator('math')).toHaveCount(3);
  await chat.expectNoConsoleErrors();
});

test('the server renders the empty page and hydration shows no flash of history', async ({ page, request }) => {
  const html = await (await request.get('/')).text();
  expect(html).toContain('data-testid="composer"');
  expect(html).not.toContain('data-testid="assistant-message"');
  const chat = new ChatPage(page);
  await chat.open();
  await chat.expectNoConsoleErrors();
});
