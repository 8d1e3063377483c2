import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';
import type { Locator, Page, TestInfo } from '@playwright/test';

/**
 * What a reader sees of an answer while it is half written. `mock:half-written`
 * (src/server/mock/scenarios/) streams an answer and pauses for 1.5 s inside a
 * bold phrase, inside a formula, and twice inside a code fence. Mid-stream:
 * - the bold phrase is already bold, and no raw `**` shows;
 * - the formula shows as its source (no MathML, nothing broken), and becomes
 *   MathML once closed;
 * - the fence is a code block already (its label, highlighted lines), and it
 *   grows line by line: the lines already there keep their DOM nodes (a view
 *   that re-rendered the whole open fence each frame would replace them).
 */

/** What the answer shows at one moment. */
async function seen(answer: Locator) {
  return answer.evaluate((el) => ({
    text: el.textContent ?? '',
    strong: [...el.querySelectorAll('strong')].map((s) => s.textContent),
    math: el.querySelectorAll('math').length,
  }));
}

async function screenshots(page: Page, info: TestInfo, name: string) {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({ path: info.outputPath(`${name}-${scheme}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

test('a half-written answer: bold without markers, formula as source, a fence that grows in place', async ({ page }, info) => {
  await page.setViewportSize({ width: 375, height: 800 });
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('Answer slowly mock:half-written');
  const turn = chat.assistant();
  const answer = turn.getByTestId('answer');

  // Inside the bold phrase (the stream pauses right after "written"):
  // bold already, no `*` on the page.
  await expect(answer).toContainText('still being written');
  const bold = await seen(answer);
  expect(bold.text, 'still inside the bold phrase').not.toContain('then closed');
  expect(bold.strong).toEqual(['a claim in bold that is still being written']);
  expect(bold.text).not.toContain('*');
  await screenshots(page, info, 'bold');

  // Inside the formula: its source, as written, and no MathML yet.
  await expect(answer).toContainText('The area of a circle is $\\pi r^');
  const formula = await seen(answer);
  expect(formula.text, 'still inside the formula').not.toContain('for a radius');
  expect(formula.math).toBe(0);
  expect(formula.text).not.toContain('*');
  await screenshots(page, info, 'formula');

  // Inside the fence: a code block with its label and highlighted lines.
  const block = answer.locator('.code-block');
  const code = block.locator('pre > code');
  await expect(code).toContainText('let pi = std::f64::consts::PI;');
  expect(await code.textContent(), 'still inside the fence').not.toContain('pi * r');
  await expect(block).toHaveCount(1);
  await expect(block.locator('.code-lang')).toHaveText('Rust');
  await expect(code.locator('.hl-kw').first()).toHaveText('fn');
  await expect(answer).not.toContainText('```');
  // The formula has closed: MathML now, and its source is gone.
  await expect(answer.locator('math')).toHaveCount(2);
  await expect(answer).not.toContainText('\\pi');
  await screenshots(page, info, 'fence');
  // Mark the first line's first token and the block itself.
  await code.evaluate((el) => {
    (el.querySelector('.hl-kw') as any).__kept = 'first line';
    (el as any).__kept = 'code';
  });

  // One more line: the block grew in place, its first line untouched.
  await expect(code).toContainText('pi * r * r');
  expect(await answer.textContent(), 'the fence is still open').not.toContain('That is all');
  expect(await code.evaluate((el) => (el as any).__kept)).toBe('code');
  expect(await code.evaluate((el) => (el.querySelector('.hl-kw') as any).__kept)).toBe('first line');
  await expect(code.locator('.hl-kw').first()).toHaveText('fn');

  // Closed: the same block, whole; nothing of the fence's markers shows.
  await expect(turn).toHaveAttribute('data-status', 'done');
  await expect(answer).toContainText('That is all.');
  expect(await code.evaluate((el) => (el as any).__kept)).toBe('code');
  expect(await code.textContent()).toBe(
    'fn area(r: f64) -> f64 {\n    let pi = std::f64::consts::PI;\n    pi * r * r\n}\n',
  );
  await expect(answer).not.toContainText('```');
  await expect(answer.locator('strong')).toHaveText('a claim in bold that is still being written');
  await chat.expectNoConsoleErrors();
});
