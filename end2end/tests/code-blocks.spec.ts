import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';
import type { Locator, Page } from '@playwright/test';

/**
 * A reasoning model answers with code. `mock:code` (src/server/mock/scenarios/)
 * reasons with a fenced Rust line, then answers with three fenced blocks:
 * Rust, Python, Bash. Each block must show its language, highlighted tokens
 * and a copy button that copies that block's code (not the label, not the
 * button's text), while streaming and after; the same after a reload.
 */

const RUST = '/// Adds up the numbers.\nfn sum(xs: &[i32]) -> i32 {\n    xs.iter().sum() // 0 when empty\n}';
const PYTHON = 'def total(xs: list[int]) -> int:\n    """Adds up the numbers."""\n    return sum(xs, 0)  # built in';
const BASH = "# one per line, then add\necho \"1 2 3\" | tr ' ' '\\n' | paste -sd+ | bc";
const SENTINEL = 'clipboard before the copy';

/** Each block's tokens, as `class:text`, in order. */
async function tokens(blocks: Locator): Promise<string[][]> {
  return blocks.evaluateAll((els) =>
    // Tokens only: the live view groups lines in runs (`md-code-run`), a reload does not.
    els.map((el) => [...el.querySelectorAll('pre > code span[class^="hl-"]')].map((s) => `${s.className}:${s.textContent}`)),
  );
}

async function clipboard(page: Page): Promise<string> {
  return page.evaluate(() => navigator.clipboard.readText());
}

async function setClipboard(page: Page, text: string) {
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
  expect(await clipboard(page)).toBe(text);
}

async function expectHighlightedAnswer(answer: Locator): Promise<string[][]> {
  const blocks = answer.locator('.code-block');
  await expect(blocks).toHaveCount(3);
  await expect(blocks.locator('.code-lang')).toHaveText(['Rust', 'Python', 'Bash']);
  await expect(blocks.getByRole('button', { name: 'Copy code' })).toHaveText(['Copy', 'Copy', 'Copy']);
  const code = await blocks.locator('pre > code').evaluateAll((els) => els.map((el) => el.textContent));
  expect(code).toEqual([`${RUST}\n`, `${PYTHON}\n`, `${BASH}\n`]);
  const found = await tokens(blocks);
  expect(found[0]).toEqual(
    expect.arrayContaining(['hl-com:/// Adds up the numbers.', 'hl-kw:fn', 'hl-fn:sum', 'hl-ty:i32', 'hl-com:// 0 when empty']),
  );
  expect(found[1]).toEqual(
    expect.arrayContaining(['hl-kw:def', 'hl-fn:total', 'hl-ty:int', 'hl-str:"""Adds up the numbers."""', 'hl-kw:return', 'hl-num:0', 'hl-com:# built in']),
  );
  expect(found[2]).toEqual(
    expect.arrayContaining(['hl-com:# one per line, then add', 'hl-fn:echo', 'hl-str:"1 2 3"', 'hl-fn:tr', 'hl-attr:-sd+', 'hl-fn:bc']),
  );
  // The style sheet colours the tokens: a keyword is not the code's own colour.
  const colours = await blocks.first().evaluate((el) => [
    getComputedStyle(el.querySelector('.hl-kw')!).color,
    getComputedStyle(el.querySelector('pre > code')!).color,
  ]);
  expect(colours[0]).not.toBe(colours[1]);
  return found;
}

async function expectHighlightedReasoning(chat: ChatPage, turn: Locator) {
  const block = chat.thinking(turn);
  if ((await chat.header(block).getAttribute('aria-expanded')) === 'false') await chat.header(block).click();
  const reasoning = chat.body(block);
  await expect(reasoning.locator('.code-block .code-lang')).toHaveText(['Rust']);
  expect((await tokens(reasoning.locator('.code-block')))[0]).toEqual(
    expect.arrayContaining(['hl-kw:let', 'hl-ty:i32', 'hl-fn:iter', 'hl-fn:sum']),
  );
}

/** Copies the second block with its button: exactly its code, and it says so. */
async function expectSecondBlockCopies(page: Page, answer: Locator) {
  await setClipboard(page, SENTINEL);
  const buttons = answer.locator('.code-block').getByRole('button', { name: /^Cop/ });
  await buttons.nth(1).click();
  await expect(buttons.nth(1)).toHaveText('Copied');
  await expect.poll(() => clipboard(page)).toBe(PYTHON);
  await expect(buttons.nth(0)).toHaveText('Copy');
  await expect(buttons.nth(2)).toHaveText('Copy');
  // And it goes back to offering the copy.
  await expect(buttons.nth(1)).toHaveText('Copy');
  await expect(buttons.nth(1)).toHaveAccessibleName('Copy code');
}

test('code blocks are highlighted, labelled and copy their own code, streaming and after a reload', async ({
  page,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: MOCKED });
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('Sum a list in three languages mock:code');
  const turn = chat.assistant();
  const answer = turn.getByTestId('answer');

  // While the answer streams, the Python block's button copies what is there
  // so far: some leading part of its code, never the label or button text.
  await expect(answer.locator('.code-block')).toHaveCount(2);
  // Some of its code has arrived (the block shows as soon as its fence opens).
  await expect(answer.locator('.code-block').nth(1).locator('pre > code')).toHaveText(/\S/);
  await expect(turn).toHaveAttribute('data-status', 'answering');
  await setClipboard(page, SENTINEL);
  await answer.locator('.code-block').nth(1).getByRole('button', { name: 'Copy code' }).click();
  await expect.poll(() => clipboard(page)).not.toBe(SENTINEL);
  const partial = await clipboard(page);
  expect(partial.length).toBeGreaterThan(0);
  expect(PYTHON.startsWith(partial)).toBe(true);

  await expect(turn).toHaveAttribute('data-status', 'done');
  const live = await expectHighlightedAnswer(answer);
  await expectHighlightedReasoning(chat, turn);
  await expectSecondBlockCopies(page, answer);

  await page.reload();
  await chat.hydrated();
  await expect(page.getByTestId('assistant-message')).toHaveCount(1);
  const replayed = await expectHighlightedAnswer(chat.assistant().getByTestId('answer'));
  expect(replayed).toEqual(live);
  await expectHighlightedReasoning(chat, chat.assistant());
  await expectSecondBlockCopies(page, chat.assistant().getByTestId('answer'));
  await chat.expectNoConsoleErrors();
});

test('at 375 px a long code line scrolls inside its block, and the page does not scroll sideways', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 740 });
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('mock:code');
  const blocks = chat.assistant().getByTestId('answer').locator('.code-block');
  await expect(blocks).toHaveCount(3);
  await expect(blocks.nth(2)).toContainText('paste -sd+');
  // The Bash line is wider than a phone: its block scrolls it…
  const bash = blocks.nth(2).locator('pre');
  await expect.poll(() => bash.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true);
  // …and nothing else is pushed past the screen's edge.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  const composer = await page.locator('form.composer').boundingBox();
  expect(composer!.x + composer!.width).toBeLessThanOrEqual(375);
});
