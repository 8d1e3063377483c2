import { expect, test } from './fixtures/test';
import { ChatPage, GUARDED } from './fixtures/chat-page';

test('with an access token the app asks for it once, then works', async ({ page, context }) => {
  await page.goto(`${GUARDED}/`);
  await expect(page).toHaveURL(`${GUARDED}/sign-in`);
  await page.getByLabel('Access token').fill('wrong');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toHaveText('That access token is not right.');

  await page.getByLabel('Access token').fill('e2e-access-token');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(`${GUARDED}/`);
  const cookie = (await context.cookies(GUARDED)).find((c) => c.name === 'pensive_access');
  expect(cookie?.httpOnly).toBe(true);
  expect(cookie?.sameSite).toBe('Strict');

  const chat = new ChatPage(page);
  await chat.hydrated();
  await chat.send('Why is the sky blue?');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('answer')).toContainText('The main points');

  // Signing out: the cookie goes, and the app asks for the token again.
  await page.getByTestId('sign-out').click();
  await expect(page).toHaveURL(`${GUARDED}/sign-in`);
  expect((await context.cookies(GUARDED)).find((c) => c.name === 'pensive_access')).toBeUndefined();
  await page.goto(`${GUARDED}/`);
  await expect(page).toHaveURL(`${GUARDED}/sign-in`);
});

test('without an access token there is nothing to sign out of', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open();
  await expect(page.getByTestId('export-json')).toBeVisible();
  // The model line streams in with the same response as the menu's answer.
  await expect(page.locator('.model-line > *').first()).toBeVisible();
  await expect(page.getByTestId('sign-out')).toHaveCount(0);
});
