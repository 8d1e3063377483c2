import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';
import type { Locator, Page } from '@playwright/test';

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

/** Imports a conversation of one question and `text` as its answer, which opens. */
async function importAnswer(page: Page, id: string, question: string, text: string) {
  const file = {
    version: 3,
    conversation: {
      id,
      title: question,
      created_at: 1,
      updated_at: 2,
      messages: [
        { role: 'user', content: question },
        { role: 'assistant', blocks: [{ kind: 'answer', text }], status: 'done' },
      ],
    },
  };
  await page.getByTestId('import-json').setInputFiles({
    name: `${id}.json`,
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify(file)),
  });
}

/**
 * LaTeX's display style: ∑ and ∏ large with their limits above and below, ∫
 * large with its limits at its side, lim text-sized with its limit below.
 * Inline (text style) every operator is text-sized with its limits at its
 * side. Each one, displayed and inline, in an imported answer; the heights
 * compared with the answer's text (a line's glyph box, ascent to descent).
 * Measured with the stylesheet in Debian's Chromium 156: before it named MATH
 * fonts a display ∑ was 16 px, as inline, 0.84 of the text's 19 px; with
 * DejaVu Math TeX Gyre it is 28 px (1.47), ∏ and ∫ 27 px, inline ones 20 px.
 */
const OPERATORS = [
  { op: '∑', tex: String.raw`\sum_{k=1}^{n} k^2`, large: true, limits: 'under' },
  { op: '∏', tex: String.raw`\prod_{i=1}^{n} x_i`, large: true, limits: 'under' },
  { op: '∫', tex: String.raw`\int_0^1 f(x)\,dx`, large: true, limits: 'side' },
  { op: 'lim', tex: String.raw`\lim_{x \to 0} \frac{\sin x}{x}`, large: false, limits: 'under' },
] as const;

test('display math draws ∑, ∏ and ∫ large with limits where LaTeX puts them; inline math stays text-sized', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  const text = [
    'Large operators, displayed:',
    ...OPERATORS.map(({ tex }) => `$$${tex}$$`),
    `Inline: ${OPERATORS.map(({ tex }) => `$${tex}$`).join(', ')}.`,
  ].join('\n\n');
  await importAnswer(page, 'operators', 'Show the large operators', text);
  const answer = chat.assistant().getByTestId('answer');
  await expect(answer.locator('math[display="block"]')).toHaveCount(OPERATORS.length);
  await expect(answer.locator('math:not([display])')).toHaveCount(OPERATORS.length);
  await expect(answer.locator('code.math-error')).toHaveCount(0);

  const measured = await answer.evaluate(async (el, ops) => {
    await document.fonts.ready;
    const box = (node: Element) => {
      const r = node.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height };
    };
    const line = document.createRange();
    line.selectNodeContents(el.querySelector('p')!.firstChild!);
    /** The operator's box, its layout element and its scripts' boxes (under/sub first). */
    const operator = (math: Element, op: string) => {
      const mo = [...math.querySelectorAll('mo')].find((m) => m.textContent === op)!;
      const [, ...scripts] = [...mo.parentElement!.children].map(box);
      return { layout: mo.parentElement!.localName, mo: box(mo), scripts };
    };
    const display = [...el.querySelectorAll('math[display="block"]')];
    const inline = [...el.querySelectorAll('math:not([display])')];
    return {
      text: line.getBoundingClientRect().height,
      operators: ops.map((op, i) => ({ display: operator(display[i], op), inline: operator(inline[i], op) })),
    };
  }, OPERATORS.map(({ op }) => op));

  type Placed = (typeof measured.operators)[number]['display'];
  /** Under: below the operator, centred on it. */
  const under = ({ mo, scripts: [script] }: Placed) =>
    script.top >= mo.bottom - 1 && (script.left + script.right) / 2 > mo.left && (script.left + script.right) / 2 < mo.right;
  /** At the side: past the operator's right edge, beside it rather than below it. */
  const side = ({ mo, scripts: [script] }: Placed) => script.right > mo.right + 1 && script.top < mo.bottom;

  OPERATORS.forEach(({ op, large, limits }, i) => {
    const { display, inline } = measured.operators[i];
    const sizes = {
      op,
      display: +(display.mo.height / measured.text).toFixed(2),
      inline: +(inline.mo.height / measured.text).toFixed(2),
      grown: +(display.mo.height / inline.mo.height).toFixed(2),
    };
    // Inline, every operator is about the text's size, its limits at its side.
    expect(sizes.inline, JSON.stringify(sizes)).toBeLessThanOrEqual(1.2);
    expect(side(inline), `${op} inline: ${JSON.stringify(inline)}`).toBe(true);
    if (large) {
      expect(sizes.display, JSON.stringify(sizes)).toBeGreaterThanOrEqual(1.3);
      expect(sizes.grown, JSON.stringify(sizes)).toBeGreaterThanOrEqual(1.25);
    } else {
      expect(sizes.grown, JSON.stringify(sizes)).toBeGreaterThan(0.9);
      expect(sizes.grown, JSON.stringify(sizes)).toBeLessThan(1.1);
    }
    if (limits === 'under') {
      expect(under(display), `${op} displayed: ${JSON.stringify(display)}`).toBe(true);
    } else {
      expect(side(display), `${op} displayed: ${JSON.stringify(display)}`).toBe(true);
    }
  });
  // ∑ and ∏ also carry their upper limit above them.
  for (const { display } of measured.operators.slice(0, 2)) {
    expect(display.scripts[1].bottom, JSON.stringify(display)).toBeLessThanOrEqual(display.mo.top + 1);
  }
  await chat.expectNoConsoleErrors();
});

test('one formula is bounded as a whole: sixty 20 em spaces scroll inside their own box and six hundred rows stay under 60 em', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 800 });
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  // Sixty 20 em spaces between bars (each within the per-length bound), and
  // six hundred rows: neither may make a box wider than the column or
  // taller than 60 em, nor the page scroll sideways.
  const bars = String.raw`|\hspace{20em}`.repeat(60) + '|';
  const rows = String.raw`\begin{matrix}` + String.raw`x \\ `.repeat(600) + String.raw`\end{matrix}`;
  const text = [`Across: $${bars}$ and inline.`, `$$${bars}$$`, `$$${rows}$$`].join('\n\n');
  await importAnswer(page, 'bounded', 'Draw long bars', text);
  const answer = chat.assistant().getByTestId('answer');
  await expect(answer.locator('math')).toHaveCount(3);
  await expect(answer.locator('code.math-error')).toHaveCount(0);
  const measured = await answer.evaluate((el) => {
    const em = parseFloat(getComputedStyle(el.querySelector('math')!).fontSize);
    return {
      em,
      answerWidth: el.getBoundingClientRect().width,
      page: { scroll: document.documentElement.scrollWidth, view: window.innerWidth },
      formulas: [...el.querySelectorAll('math')].map((m) => {
        const r = m.getBoundingClientRect();
        return { width: r.width, height: r.height, scrollWidth: m.scrollWidth, clientWidth: m.clientWidth };
      }),
    };
  });
  // No page-wide scroll: each formula scrolls inside its own box.
  expect(measured.page.scroll).toBeLessThanOrEqual(measured.page.view);
  for (const f of measured.formulas) {
    expect(f.width).toBeLessThanOrEqual(measured.answerWidth + 1);
    expect(f.height).toBeLessThanOrEqual(61 * measured.em);
  }
  const [inline, across, down] = measured.formulas;
  expect(inline.scrollWidth).toBeGreaterThan(inline.clientWidth);
  // Sixty 20 em spaces would be 1,200 em wide; their budget is 60 em (the
  // bars themselves add their own width, about 14 em here).
  expect(across.scrollWidth).toBeLessThanOrEqual(80 * measured.em);
  // Six hundred rows are far taller than the bound: the box stops at it.
  expect(down.height).toBeGreaterThan(50 * measured.em);
});
