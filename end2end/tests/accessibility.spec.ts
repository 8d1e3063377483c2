import { expect, test } from '@playwright/test';
import { ChatPage, MOCKED, NO_THINKING } from './fixtures/chat-page';

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
  const box = await header.boundingBox();
  expect(box!.height).toBeGreaterThanOrEqual(44);
  await header.focus();
  await page.keyboard.press('Enter');
  await expect(header).toHaveAttribute('aria-expanded', 'true');
  await expect(body).not.toHaveAttribute('inert', /.*/);
  // No live region on the streaming text itself.
  expect(await page.locator('.thinking-body[aria-live], .answer[aria-live]').count()).toBe(0);
});

test('prefers-reduced-motion removes every animation', async ({ page }) => {
  await page.emulateMedia({ reducedMotion: 'reduce' });
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('mock:slow-first');
  const pulse = chat.assistant().locator('.pulse');
  await expect(pulse).toBeVisible();
  expect(await pulse.evaluate((el) => getComputedStyle(el).animationName)).toBe('none');
});

test('the reasoning stays pinned to the bottom until the reader scrolls up, then stays put', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('mock:huge');
  const body = chat.body(chat.thinking());
  await expect(body).toBeVisible();
  const gap = () => body.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
  await expect.poll(async () => body.evaluate((el) => el.scrollHeight > el.clientHeight * 2)).toBe(true);
  await expect.poll(gap).toBeLessThan(30);
  // Height-capped.
  const height = await body.evaluate((el) => el.clientHeight);
  expect(height).toBeLessThan(400);
  // The reader scrolls up: new text does not pull them down.
  await body.evaluate((el) => {
    el.scrollTop = 0;
    el.dispatchEvent(new Event('scroll'));
  });
  const grown = await body.evaluate((el) => el.scrollHeight);
  await expect.poll(async () => body.evaluate((el) => el.scrollHeight)).toBeGreaterThan(grown);
  expect(await body.evaluate((el) => el.scrollTop)).toBe(0);
  await page.getByTestId('stop').click();
});

test('the kill switch: no thinking reaches the page, the answer does', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(NO_THINKING);
  await chat.send('Why is the sky blue?');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('answer')).toContainText('The main points');
  await expect(chat.assistant().getByTestId('thinking-block')).toHaveCount(0);
});
