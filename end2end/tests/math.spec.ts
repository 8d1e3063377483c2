import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';
import type { Locator } from '@playwright/test';

/**
 * A reasoning model writes math in four forms: `$…$`, `$$…$$`, `\(…\)` and
 * `\[…\]`. `mock:math` (src/server/mock/scenarios/) uses all four in its reasoning
 * and in its answer, with prices that must stay text, and pauses for 1.5 s in
 * the middle of the answer's last display formula. The page must show MathML
 * (native, no script, no style attribute: the fixture fails on any CSP
 * violation), the half-written formula as its source until it closes, and the
 * same after a reload.
 */

/** The formulas of a rendered part, as the user's browser holds them. */
async function formulas(part: Locator): Promise<string[]> {
  return part.locator('math').evaluateAll((els) => els.map((el) => el.outerHTML));
}

/** What makes math safe to show: no link, style, id or handler inside it. */
async function expectInertMath(part: Locator) {
  const found = await part.evaluate((el) => {
    const inside = [...el.querySelectorAll('math *, math')];
    return {
      foreign: inside.filter((node) => node.namespaceURI !== 'http://www.w3.org/1998/Math/MathML').length,
      attributes: inside.flatMap((node) =>
        [...node.attributes].map((a) => a.name).filter((name) => /^(on|style$|href$|id$|src$)/.test(name)),
      ),
    };
  });
  expect(found.foreign).toBe(0);
  expect(found.attributes).toEqual([]);
}

async function expectRenderedMath(chat: ChatPage, turn: Locator) {
  const answer = turn.getByTestId('answer');
  // Five formulas, two of them display; none failed to render.
  await expect(answer.locator('math')).toHaveCount(5);
  await expect(answer.locator('math[display="block"]')).toHaveCount(2);
  await expect(answer.locator('math mfrac').first()).toBeVisible();
  await expect(answer.locator('math mtable')).toHaveCount(1);
  await expect(answer.locator('code.math-error')).toHaveCount(0);
  // The LaTeX itself is gone; the prices are text.
  await expect(answer).not.toContainText('\\frac');
  await expect(answer).not.toContainText('\\(');
  await expect(answer).toContainText('A calculator costs $5-$10, a textbook $30.');
  await expectInertMath(answer);

  const block = chat.thinking(turn);
  if ((await chat.header(block).getAttribute('aria-expanded')) === 'false') await chat.header(block).click();
  const reasoning = chat.body(block);
  await expect(reasoning.locator('math')).toHaveCount(4);
  await expect(reasoning.locator('math[display="block"]')).toHaveCount(2);
  await expect(reasoning.locator('code.math-error')).toHaveCount(0);
  await expect(reasoning).not.toContainText('\\frac');
  await expect(reasoning).toContainText('$5 and $10 stay prices.');
  await expectInertMath(reasoning);
}

test('math in reasoning and answer renders as MathML, prices stay text, the same after a reload', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('Solve the quadratic mock:math');
  const turn = chat.assistant();
  const answer = turn.getByTestId('answer');

  // Mid-stream, inside the last display formula: it shows as its source, while
  // the four formulas already closed are MathML.
  await expect(answer).toContainText('\\begin{cases} 2 & \\Delta > 0 \\\\');
  await expect(answer.locator('math')).toHaveCount(4);
  await expect(answer.locator('math mtable')).toHaveCount(0);
  await expect(answer).toContainText('\\[');

  await expect(turn).toHaveAttribute('data-status', 'done');
  await expect(answer).not.toContainText('\\begin{cases}');
  await expectRenderedMath(chat, turn);
  const live = { answer: await formulas(answer), reasoning: await formulas(chat.body(chat.thinking(turn))) };

  await page.reload();
  await chat.hydrated();
  await expect(page.getByTestId('assistant-message')).toHaveCount(1);
  await expectRenderedMath(chat, chat.assistant());
  const replayed = {
    answer: await formulas(chat.assistant().getByTestId('answer')),
    reasoning: await formulas(chat.body(chat.thinking(chat.assistant()))),
  };
  expect(replayed).toEqual(live);
  await chat.expectNoConsoleErrors();
});
