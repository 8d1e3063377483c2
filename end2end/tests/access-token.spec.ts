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
});
