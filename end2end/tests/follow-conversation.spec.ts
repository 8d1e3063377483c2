import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';
import type { Locator, Page } from '@playwright/test';

// The conversation follows what the model is doing (design §4, issue 19):
// sessions of several turns, a reader who scrolls, reloads, a phone.
// `mock:long-reasoning` streams reasoning taller than the Thinking block's box
// and a several-paragraph answer, in about four seconds.

const LONG = 'mock:long-reasoning';

/** Where `el` stands against the conversation's visible box. */
const placement = (el: Locator) =>
  el.evaluate((node) => {
    const view = node.closest('main')!.getBoundingClientRect();
    const box = node.getBoundingClientRect();
    return {
      whole: box.top >= view.top - 1 && box.bottom <= view.bottom + 1,
      bottomShown: box.bottom <= view.bottom + 1 && box.bottom >= view.top,
    };
  });
const inView = async (el: Locator) => (await placement(el)).whole;
const bottomInView = async (el: Locator) => (await placement(el)).bottomShown;

const conversation = (page: Page) => page.getByTestId('conversation');
/** How far the conversation is from its bottom (px). */
const gap = (page: Page) => conversation(page).evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
const jumpButton = (page: Page) => page.getByRole('button', { name: /Jump to latest/ });

async function finishTurn(chat: ChatPage) {
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
}

test('four turns in a row: each question, its live Thinking header and the end of its answer are in view', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  for (let n = 1; n <= 4; n++) {
    await chat.send(`Question ${n} ${LONG}`);
    const question = page.locator('.conversation-content .message.user').last();
    await expect(question).toContainText(`Question ${n}`);
    await expect.poll(() => inView(question), `question ${n} in view`).toBe(true);

    const turn = chat.assistant();
    const block = chat.thinking(turn);
    const header = chat.header(block);
    // While it thinks: the live header and the reasoning's last line.
    await expect
      .poll(async () => ({
        live: /^Thinking…/.test((await header.innerText()).trim()),
        header: await inView(header),
        lastLine: await bottomInView(chat.body(block)),
      }), `turn ${n} thinking in view`)
      .toEqual({ live: true, header: true, lastLine: true });
    // While it answers: the answer's last line.
    await expect
      .poll(async () => ({
        answering: (await turn.getAttribute('data-status')) === 'answering',
        end: await bottomInView(turn.getByTestId('answer').last()),
      }), `turn ${n} answer in view`)
      .toEqual({ answering: true, end: true });
    await finishTurn(chat);
    await expect.poll(() => bottomInView(turn.getByTestId('answer').last()), `turn ${n} ends in view`).toBe(true);
  }
  await chat.expectNoConsoleErrors();
});

test('a reader who scrolls up mid-stream stays put, then "Jump to latest" takes them back and follows again', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send(`First ${LONG}`);
  await finishTurn(chat);
  await expect(jumpButton(page)).toBeHidden();

  await chat.send(`Second ${LONG}`);
  await expect(chat.header(chat.thinking())).toContainText('Thinking');
  // The reader scrolls up with the wheel, over the conversation.
  await conversation(page).hover({ position: { x: 20, y: 20 } });
  await page.mouse.wheel(0, -500);
  await expect.poll(() => gap(page)).toBeGreaterThan(300);
  // What they are reading: the first question, wherever it stands now.
  const reading = page.locator('.conversation-content .message.user').first();
  const readingTop = () => reading.evaluate((el) => Math.round(el.getBoundingClientRect().top));
  const before = await readingTop();
  const heightBefore = await conversation(page).evaluate((el) => el.scrollHeight);
  await expect(jumpButton(page)).toBeVisible();

  // Seconds of streaming below (reasoning, the fold, the answer): it stays put.
  await finishTurn(chat);
  expect(await conversation(page).evaluate((el) => el.scrollHeight)).toBeGreaterThan(heightBefore);
  expect(await readingTop()).toBe(before);
  expect(await gap(page)).toBeGreaterThan(300);
  await expect(jumpButton(page)).toContainText('new text below');

  // By keyboard: Tab reaches it like any button; Enter takes the reader down.
  await jumpButton(page).focus();
  await page.keyboard.press('Enter');
  await expect.poll(() => gap(page)).toBeLessThan(30);
  await expect(jumpButton(page)).toBeHidden();

  // …and the view follows again.
  await chat.send(`Third ${LONG}`);
  await expect
    .poll(async () => inView(chat.header(chat.thinking())))
    .toBe(true);
  await finishTurn(chat);
  await expect.poll(() => bottomInView(chat.assistant().getByTestId('answer').last())).toBe(true);
  await chat.expectNoConsoleErrors();
});

test('jumps glide, and under reduced motion they jump at once', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  for (const n of [1, 2]) {
    await chat.send(`Turn ${n} ${LONG}`);
    await finishTurn(chat);
  }
  const gapRightAfterClick = async () => {
    await conversation(page).evaluate((el) => el.scrollTo({ top: 0 }));
    await expect(jumpButton(page)).toBeVisible();
    return jumpButton(page).evaluate((button) => {
      (button as HTMLButtonElement).click();
      const el = button.closest('.conversation-wrap')!.querySelector('main')!;
      return el.scrollHeight - el.scrollTop - el.clientHeight;
    });
  };
  expect(await gapRightAfterClick(), 'smooth: still on its way').toBeGreaterThan(100);
  // The glide arrives at the very bottom.
  await expect.poll(() => gap(page)).toBeLessThan(1);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  expect(await gapRightAfterClick(), 'reduced motion: there at once').toBeLessThan(30);
});

/** What one animation frame showed of the latest answer. */
type Frame = { hydrated: boolean; page: boolean; formatted: boolean; atBottom: boolean; answerBottom: number | null };

test('a reload opens at the latest turn, formatted from its first frame, without a jump', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  for (const n of [1, 2, 3]) {
    await chat.send(`Turn ${n} ${LONG}`);
    await finishTurn(chat);
  }
  await page.addInitScript(() => {
    const frames: Frame[] = [];
    (window as any).__frames = frames;
    const sample = () => {
      const main = document.querySelector('main');
      const answers = [...document.querySelectorAll('main .answer')].filter((a) => a.getClientRects().length > 0);
      const last = answers[answers.length - 1];
      frames.push({
        hydrated: document.body?.dataset.hydrated === 'true',
        page: !!main,
        // Formatted: the answer's bold lead-ins are elements, not asterisks.
        formatted: !!last && !!last.querySelector('strong') && !last.textContent!.includes('**'),
        atBottom: !!main && main.scrollHeight - main.scrollTop - main.clientHeight < 30,
        answerBottom: last ? Math.round(last.getBoundingClientRect().bottom) : null,
      });
      afterNextPaint();
    };
    // Read what each frame painted: a task queued from the frame's
    // animation callbacks runs after its layout, resize observers and paint
    // (read inside the callback, it would be the state before them).
    const afterNextPaint = () => requestAnimationFrame(() => setTimeout(sample, 0));
    afterNextPaint();
  });
  await page.reload();
  await chat.hydrated();
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('answer').locator('strong').first()).toBeVisible();
  // Some frames after the app's own conversation is shown.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(r)))));
  const frames: Frame[] = (await page.evaluate(() => (window as any).__frames)).filter((f: Frame) => f.page);
  expect(frames.length).toBeGreaterThan(3);
  expect(frames[0].hydrated, 'first frame recorded before hydration').toBe(false);
  expect(frames[0], 'the first frame').toMatchObject({ formatted: true, atBottom: true });
  expect(frames.filter((f) => !f.formatted), 'frames without the formatted answer').toEqual([]);
  const bottoms = new Set(frames.map((f) => f.answerBottom));
  expect([...bottoms], 'where the latest answer ends, frame by frame').toHaveLength(1);
  expect(await bottomInView(chat.assistant().getByTestId('answer').last())).toBe(true);
  await chat.expectNoConsoleErrors();
});

test('a finished Thinking block, reopened, starts at its top', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send(LONG);
  const block = chat.thinking();
  const body = chat.body(block);
  // While live it follows its end.
  await expect.poll(() => body.evaluate((el) => el.scrollHeight > el.clientHeight * 1.5)).toBe(true);
  await expect.poll(() => body.evaluate((el) => el.scrollTop)).toBeGreaterThan(100);
  await finishTurn(chat);
  const header = chat.header(block);
  await expect(header).toHaveAttribute('aria-expanded', 'false');
  await header.click();
  await expect(body).toBeVisible();
  await expect(body).toContainText('Step 1:');
  // Two frames for the reopening render, then read where it stands.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  expect(await body.evaluate((el) => el.scrollTop)).toBe(0);
  expect(await inView(body.getByText('Step 1:', { exact: false }).first())).toBe(true);
});

test('a reload right after new text appeared keeps every piece that was on screen', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

  // Mid-reasoning: a piece appears, 300 ms pass, the page reloads.
  await chat.send(`Reasoning ${LONG}`);
  const body = chat.body(chat.thinking());
  await expect(body).toContainText('Step 3:');
  await page.waitForTimeout(300); // the story's own timing: a reload 300 ms after the piece appeared
  const reasoningSeen = squash(await body.innerText());
  await page.reload();
  await chat.hydrated();
  // The turn ran on in the server: the page attaches to it again and it ends whole.
  const resumed = chat.thinking();
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.header(resumed)).toContainText(/Thought for \d+s/);
  if ((await chat.header(resumed).getAttribute('aria-expanded')) !== 'true') await chat.header(resumed).click();
  await expect.poll(async () => squash(await chat.body(resumed).innerText())).toContain(reasoningSeen);

  // Mid-answer: the same.
  await chat.send(`Answer ${LONG}`);
  const answer = chat.assistant().getByTestId('answer').last();
  await expect(answer).toContainText('Part 2.');
  await page.waitForTimeout(300); // as above
  const answerSeen = squash(await answer.innerText());
  await page.reload();
  await chat.hydrated();
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect.poll(async () => squash(await chat.assistant().getByTestId('answer').last().innerText())).toContain(answerSeen);
  await chat.expectNoConsoleErrors();
});

test('on a phone the conversation keeps most of the screen, nothing covers it, options sit in a menu', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 740 });
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send(LONG);
  await expect(chat.header(chat.thinking())).toContainText('Thinking');
  const box = await conversation(page).boundingBox();
  expect(box!.height / 740, 'share of the screen').toBeGreaterThanOrEqual(0.6);
  // Every point of the conversation's box belongs to the conversation.
  const covered = await conversation(page).evaluate((main) => {
    const r = main.getBoundingClientRect();
    const hits: string[] = [];
    for (const fy of [0.02, 0.25, 0.5, 0.75, 0.98]) {
      for (const fx of [0.05, 0.5, 0.95]) {
        const x = r.left + r.width * fx;
        const y = r.top + r.height * fy;
        const at = document.elementFromPoint(x, y);
        if (!at || !main.contains(at)) hits.push(`${Math.round(x)},${Math.round(y)}: ${at?.className}`);
      }
    }
    return hits;
  });
  expect(covered).toEqual([]);
  // The fold preference and the exports are one tap away.
  await expect(page.getByTestId('fold-preference')).toBeHidden();
  await page.getByRole('button', { name: 'Options' }).click();
  await expect(page.getByTestId('fold-preference')).toBeVisible();
  await expect(page.getByTestId('export-json')).toBeVisible();
  await finishTurn(chat);
  await chat.expectNoConsoleErrors();
});
