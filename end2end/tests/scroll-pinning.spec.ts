import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';

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
  // The pin's own scroll event can arrive after more text grew the box (a
  // slow frame): the box is then short of the bottom, but the reader did not
  // move, so it stays pinned.
  await body.evaluate((el) => {
    el.style.paddingBottom = '600px';
    el.dispatchEvent(new Event('scroll'));
    el.style.paddingBottom = '';
  });
  const before = await body.evaluate((el) => el.scrollHeight);
  await expect.poll(async () => body.evaluate((el) => el.scrollHeight)).toBeGreaterThan(before);
  await expect.poll(gap).toBeLessThan(30);
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

test('folding and unfolding keeps where the reader had scrolled to', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('mock:huge');
  const header = chat.header(chat.thinking());
  const body = chat.body(chat.thinking());
  await expect(body).toBeVisible();
  await expect.poll(async () => body.evaluate((el) => el.scrollHeight > el.clientHeight * 3)).toBe(true);
  // The reader scrolls up a little, folds the block and opens it again.
  await body.evaluate((el) => {
    el.scrollTop = 200;
    el.dispatchEvent(new Event('scroll'));
  });
  await header.click();
  await expect(header).toHaveAttribute('aria-expanded', 'false');
  await header.click();
  await expect(body).toBeVisible();
  // Back where the reader was, not pulled to the bottom by the reopening render.
  await expect.poll(async () => body.evaluate((el) => el.scrollTop)).toBe(200);
  expect(await body.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)).toBeGreaterThan(200);
  await page.getByTestId('stop').click();
});
