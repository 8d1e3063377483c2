import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';
import { plantLocalStorage, UNREADABLE_RECORD } from './fixtures/stored';
import type { Page } from '@playwright/test';

/** What one animation frame showed. */
type Frame = { t: number; hydrated: boolean; welcome: boolean; conversation: boolean };

/**
 * Records, for every animation frame from the document's very first one,
 * whether the empty-conversation welcome and the conversation are on screen.
 * Init scripts run before any of the page's own scripts, so the first
 * callback comes before the server's HTML is first painted.
 */
async function recordFrames(page: Page) {
  await page.addInitScript(() => {
    const frames: Frame[] = [];
    (window as any).__frames = frames;
    const shown = (selector: string) => {
      const el = document.querySelector(selector);
      if (!el) return false;
      const box = el.getBoundingClientRect();
      return box.width > 0 && box.height > 0 && el.checkVisibility({ visibilityProperty: true, opacityProperty: true });
    };
    const sample = (t: number) => {
      frames.push({
        t,
        hydrated: document.body?.dataset.hydrated === 'true',
        welcome: shown('.empty-state'),
        conversation: shown('[data-testid="conversation"] .message'),
      });
      requestAnimationFrame(sample);
    };
    requestAnimationFrame(sample);
  });
}

const frames = (page: Page): Promise<Frame[]> => page.evaluate(() => (window as any).__frames);

test('a returning user never sees the empty-conversation welcome while history loads', async ({ page }) => {
  const chat = new ChatPage(page);
  await recordFrames(page);
  await chat.open(MOCKED);
  // Store history the way a user does: one real turn, saved at its end.
  await chat.send('mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');

  await page.reload();
  await chat.hydrated();
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  // A few frames after the conversation is shown, so the recording covers it.
  await expect.poll(async () => (await frames(page)).filter((f) => f.conversation).length).toBeGreaterThan(3);

  const recorded = await frames(page);
  // Recording began before the app ran: the server's HTML was on screen.
  expect(recorded[0].hydrated, 'first frame recorded before hydration').toBe(false);
  expect(recorded.filter((f) => f.welcome), 'frames showing the empty-conversation welcome').toEqual([]);
  expect(recorded[recorded.length - 1].conversation).toBe(true);
  await chat.expectNoConsoleErrors();
});

test('a first-time visitor sees the welcome from the first frame', async ({ page }) => {
  const chat = new ChatPage(page);
  await recordFrames(page);
  await chat.open(MOCKED);
  await expect(page.locator('.empty-state')).toBeVisible();
  const recorded = await frames(page);
  // From the first frame the page has a body to paint, the welcome is there.
  const painted = recorded.filter((f) => f.welcome || f.conversation || f.hydrated);
  expect(painted.length).toBeGreaterThan(0);
  expect(recorded.findIndex((f) => f.welcome)).toBe(recorded.findIndex((f) => f.welcome || f.hydrated));
  expect(painted.every((f) => f.welcome && !f.conversation)).toBe(true);
  await chat.expectNoConsoleErrors();
});

test('when the only stored conversation is unreadable, the welcome appears once history is loaded', async ({ page }) => {
  await plantLocalStorage(page, { 'pensive.conversation.broken': UNREADABLE_RECORD });
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await expect(page.getByTestId('notice').first()).toContainText('could not be opened');
  await expect(page.locator('.empty-state')).toBeVisible();
});
