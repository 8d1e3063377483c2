import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';

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

test('prefers-reduced-motion removes every animation', async ({ page }) => {
  await page.emulateMedia({ reducedMotion: 'reduce' });
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('mock:slow-first');
  const pulse = chat.assistant().locator('.pulse');
  await expect(pulse).toBeVisible();
  expect(await pulse.evaluate((el) => getComputedStyle(el).animationName)).toBe('none');
});
