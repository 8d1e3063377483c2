import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';
import { plantLocalStorage, UNREADABLE_RECORD } from './fixtures/stored';
import { focusRing, measureTextContrast, movingElements, type FocusRing, type TextSample } from './fixtures/a11y';
import type { Page } from '@playwright/test';

test('the header is a labelled toggle for a region that is inert when folded; one polite status line', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  const status = page.getByTestId('status');
  await expect(status).toHaveAttribute('aria-live', 'polite');
  await chat.send('mock:normal');
  await expect(status).toHaveText('Thinking');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(status).toHaveText('Answer complete');

  const header = chat.header(chat.thinking());
  const body = chat.body(chat.thinking());
  const controls = await header.getAttribute('aria-controls');
  expect(controls).toBeTruthy();
  await expect(body).toHaveAttribute('id', controls!);
  await expect(body).toHaveAttribute('role', 'region');
  await expect(body).toHaveAttribute('inert', '');
  // Folded, the region is out of the browser's accessibility tree (not only marked inert).
  const cdp = await page.context().newCDPSession(page);
  const reasoningRegions = async () => {
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    return nodes.filter((n: any) => !n.ignored && n.role?.value === 'region' && n.name?.value === 'Reasoning').length;
  };
  expect(await reasoningRegions()).toBe(0);
  const box = await header.boundingBox();
  expect(box!.height).toBeGreaterThanOrEqual(44);
  await header.focus();
  await page.keyboard.press('Enter');
  await expect(header).toHaveAttribute('aria-expanded', 'true');
  await expect(body).not.toHaveAttribute('inert', /.*/);
  await expect.poll(reasoningRegions).toBe(1);
  // No live region on the streaming text itself.
  expect(await page.locator('.thinking-body[aria-live], .answer[aria-live]').count()).toBe(0);
});

/** Presses Tab until every target has had keyboard focus; returns each one's ring. */
async function tabThrough(page: Page, targets: string[]): Promise<Map<string, FocusRing>> {
  const seen = new Map<string, FocusRing>();
  for (let presses = 0; presses < 80 && targets.some((t) => !seen.has(t)); presses++) {
    await page.keyboard.press('Tab');
    const ring = await focusRing(page);
    if (ring && targets.includes(ring.target) && !seen.has(ring.target)) seen.set(ring.target, ring);
  }
  expect([...seen.keys()].sort(), 'reached with the Tab key').toEqual([...targets].sort());
  return seen;
}

function expectVisibleRings(rings: Map<string, FocusRing>) {
  for (const [target, ring] of rings) {
    // The stylesheet draws focus as an outline (`:focus-visible`), not a box-shadow.
    expect(ring.outlineStyle, `${target} outline-style`).not.toBe('none');
    expect(ring.outlineWidth, `${target} outline-width`).toBeGreaterThanOrEqual(2);
    // All of it shows: no scrolling or clipping ancestor cuts a side off.
    expect(ring.clippedPx, `${target}: px of the ring clipped`).toBe(0);
    // And it stands out from what is around it (WCAG 1.4.11: 3:1 for UI parts).
    expect(ring.ratio, `${target} ring contrast`).toBeGreaterThanOrEqual(3);
  }
}

test('keyboard focus draws a ring of at least 2 px, uncut, on the thinking header, composer controls and sidebar buttons', async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await chat.composer.fill('a draft, so Send can take focus');
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.locator('h1.brand').click(); // Tab from the top, as a keyboard user starts
    expectVisibleRings(
      await tabThrough(page, [
        '[data-testid=new-conversation]',
        'button.conversation-title',
        '[data-testid=rename]',
        '[data-testid=delete]',
        'button.thinking-header',
        '[data-testid=composer]',
        '[data-testid=send]',
      ]),
    );
  }

  // Stop, while a turn runs.
  await chat.composer.fill('');
  await chat.send('mock:huge');
  await expect(chat.header(chat.thinking())).toHaveText(/^Thinking…/);
  await page.locator('h1.brand').click();
  expectVisibleRings(await tabThrough(page, ['[data-testid=stop]']));
  await page.getByTestId('stop').click();

  // At phone width the sidebar is behind its menu button.
  await page.setViewportSize({ width: 375, height: 740 });
  await page.locator('h1.brand').click();
  await page.keyboard.press('Shift+Tab');
  const toggle = await focusRing(page);
  expect(toggle?.target).toBe('[data-testid=menu-toggle]');
  expectVisibleRings(new Map([[toggle!.target, toggle!]]));
});

test('under prefers-reduced-motion no element animates or transitions, in states where they otherwise would', async ({
  page,
}) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  const check = async (state: string) => {
    // The same page, same moment: first as most users see it, then reduced.
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    expect((await movingElements(page)).length, `${state}: something moves without the preference`).toBeGreaterThan(0);
    await page.emulateMedia({ reducedMotion: 'reduce' });
    expect(await movingElements(page), `${state}: moving under prefers-reduced-motion`).toEqual([]);
  };

  await chat.send('mock:slow-first');
  await expect(chat.assistant().getByTestId('waiting')).toBeVisible();
  await check('waiting for the first token');
  // The mocked server's first-token guard (2 s) ends this one.
  await expect(chat.assistant()).toHaveAttribute('data-status', 'error');

  await chat.send('mock:huge');
  await expect(chat.header(chat.thinking())).toHaveText(/^Thinking…/);
  await check('reasoning streaming');
  await page.getByTestId('stop').click();
});

test('the polite status line announces "Thought for N seconds" at the fold, and errors', async ({ page }) => {
  const chat = new ChatPage(page);
  const recordAnnouncements = () =>
    page.evaluate(() => {
      const status = document.querySelector('[role="status"][aria-live="polite"]')!;
      const heard: string[] = [];
      (window as any).__heard = heard;
      new MutationObserver(() => {
        const text = status.textContent ?? '';
        if (heard[heard.length - 1] !== text) heard.push(text);
      }).observe(status, { childList: true, characterData: true, subtree: true });
    });
  const heard = (): Promise<string[]> => page.evaluate(() => (window as any).__heard);

  // The demo model thinks for a few seconds before it answers.
  await chat.open();
  await recordAnnouncements();
  await chat.send('Why is the sky blue?');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  const seconds = (await chat.header(chat.thinking()).textContent())!.match(/^Thought for (\d+)s/)![1];
  expect(Number(seconds)).toBeGreaterThanOrEqual(2);
  expect(await heard()).toEqual(['Thinking', `Thought for ${seconds} seconds`, 'Answer complete']);

  await chat.open(MOCKED);
  await recordAnnouncements();
  await chat.send('mock:http-500');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'error');
  const error = (await chat.assistant().getByTestId('turn-error').textContent())!;
  expect(await heard()).toEqual(['Thinking', `Error: ${error}`]);
});

/** The contrast figure the README states ("text contrast ≥ X:1 in both themes"). */
function readmeContrastFigure(): number {
  const readme = readFileSync(resolve(__dirname, '../../README.md'), 'utf8');
  const figure = readme.match(/text contrast ≥ (\d+(?:\.\d+)?):1 in both themes/);
  expect(figure, 'the README states a contrast figure').not.toBeNull();
  return Number(figure![1]);
}

test("every visible text, in every state, in both themes, meets the README's contrast figure", async ({ page }) => {
  test.setTimeout(180_000);
  const samples: (TextSample & { state: string })[] = [];
  const measure = async (state: string) => {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      for (const s of await measureTextContrast(page)) samples.push({ ...s, state: `${state}, ${colorScheme}` });
    }
  };
  const chat = new ChatPage(page);
  // An unreadable record: the empty-conversation welcome and a notice with a download link.
  await plantLocalStorage(page, { 'pensive.conversation.broken': UNREADABLE_RECORD });
  await chat.open(MOCKED);
  await expect(page.getByTestId('download-backup')).toBeVisible();
  await measure('first visit, notice');

  await chat.send('mock:slow-first');
  await expect(chat.assistant().getByTestId('waiting')).toBeVisible();
  await measure('waiting');
  // The mocked server's first-token guard (2 s) ends it with an error.
  await expect(chat.assistant()).toHaveAttribute('data-status', 'error');
  await measure('error');

  await chat.send('mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await measure('folded, done');

  await chat.send('mock:hostile-markdown');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await chat.header(chat.thinking()).click();
  await expect(chat.body(chat.thinking())).toBeVisible();
  await measure('markdown, reasoning open');

  await chat.send('mock:opaque');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await measure('opaque');

  await chat.send('mock:huge');
  await expect(chat.header(chat.thinking())).toHaveText(/^Thinking…/);
  await measure('streaming');
  await chat.header(chat.thinking()).click();
  await expect(chat.thinking().getByTestId('thinking-preview')).toBeVisible();
  await measure('folded while streaming');
  await page.getByTestId('stop').click();
  await expect(chat.assistant().getByTestId('turn-stopped')).toBeVisible();
  await measure('stopped');

  await chat.send('mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await page.getByTestId('edit').click();
  await measure('editing a message');

  await page.getByTestId('new-conversation').click();
  await chat.send('mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await page.getByTestId('rename').first().click();
  await measure('sidebar, renaming');
  await page.keyboard.press('Escape');
  await page.getByTestId('delete').first().click();
  await expect(page.getByTestId('undo-delete')).toBeVisible();
  await measure('sidebar, undo');

  await page.setViewportSize({ width: 375, height: 740 });
  await page.getByTestId('menu-toggle').click();
  await measure('phone, menu open');

  const worst = samples.reduce((a, b) => (b.ratio < a.ratio ? b : a));
  const measured = Math.floor(worst.ratio * 10) / 10;
  console.log(
    `lowest text contrast over ${samples.length} texts: ${worst.ratio.toFixed(2)}:1 ` +
      `(${worst.fg} on ${worst.bg}: "${worst.text}" at ${worst.where}, ${worst.state})`,
  );
  const figure = readmeContrastFigure();
  expect(worst.ratio, 'lowest measured contrast vs the README').toBeGreaterThanOrEqual(figure);
  // And the README says exactly what is measured (rounded down), not less.
  expect(figure, "the README's figure is the measured minimum").toBe(measured);
  // Every state above really was measured, in both themes.
  const states = new Set(samples.map((s) => s.state));
  expect(states.size).toBe(26);
});
