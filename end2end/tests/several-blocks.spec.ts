import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';

test('several thinking blocks interleave with answer segments, each with its own duration', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('Plan it out mock:several-blocks');
  const turn = chat.assistant();
  await expect(turn).toHaveAttribute('data-status', 'done');

  // Order in the page: thinking, thinking, answer, thinking, answer.
  const kinds = await turn.locator('[data-testid="thinking-block"], [data-testid="answer"]').evaluateAll((els) =>
    els.map((el) => el.getAttribute('data-testid')),
  );
  expect(kinds).toEqual(['thinking-block', 'thinking-block', 'answer', 'thinking-block', 'answer']);
  const headers = chat.headers(turn);
  await expect(headers).toHaveCount(3);
  for (let i = 0; i < 3; i++) {
    await expect(headers.nth(i)).toHaveText(/^Thought for (\d+s|less than a second)/);
    await expect(headers.nth(i)).toHaveAttribute('aria-expanded', 'false');
  }
  // Each block keeps its own reasoning.
  await headers.nth(1).click();
  await expect(turn.locator('.thinking-body').nth(1)).toContainText('Then I check my plan.');
  await expect(turn.locator('.thinking-body').nth(1)).not.toContainText('First I look');
  await expect(turn.getByTestId('answer').first()).toHaveText('Part one.');
  await chat.expectNoConsoleErrors();
});

test('reasoning tokens are the turn\'s: shown once, in its footer, never as one block\'s count', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('hello mock:several-blocks');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.headers()).toHaveCount(3);
  for (const header of await chat.headers().all()) {
    await expect(header).toHaveText(/^Thought for (\d+s|less than a second)$/);
  }
  await expect(chat.assistant().getByTestId('reasoning-tokens')).toHaveCount(1);
  await expect(chat.assistant().getByTestId('reasoning-tokens')).toHaveText('30 reasoning tokens');
});
