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

test('each sign-in is its own session: signing out ends it on the server, and a copy of its cookie gets 401', async ({ browser, playwright }) => {
  const signIn = async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${GUARDED}/sign-in`);
    await page.getByLabel('Access token').fill('e2e-access-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(`${GUARDED}/`);
    const cookie = (await context.cookies(GUARDED)).find((c) => c.name === 'pensive_access');
    expect(cookie).toBeDefined();
    return { context, page, value: cookie!.value };
  };
  const laptop = await signIn();
  const phone = await signIn();
  expect(laptop.value).not.toEqual(phone.value);

  // The API as a copy of each cookie (taken before sign-out) would call it.
  const api = await playwright.request.newContext();
  const access = (value: string) =>
    api.post(`${GUARDED}/api/access`, {
      headers: { cookie: `pensive_access=${value}`, origin: GUARDED, 'content-type': 'application/json' },
      data: {},
    });
  expect((await access(laptop.value)).status()).toBe(200);

  await new ChatPage(laptop.page).hydrated();
  await laptop.page.getByTestId('sign-out').click();
  await expect(laptop.page).toHaveURL(`${GUARDED}/sign-in`);
  expect((await access(laptop.value)).status()).toBe(401);
  // The other browser's session goes on.
  expect((await access(phone.value)).status()).toBe(200);
  await phone.page.reload();
  await expect(phone.page).toHaveURL(`${GUARDED}/`);
  await api.dispose();
  await laptop.context.close();
  await phone.context.close();
});

test('on a shared machine, "Sign out and clear this browser\'s history" asks, then leaves no conversation behind', async ({ page }) => {
  await page.goto(`${GUARDED}/sign-in`);
  await page.getByLabel('Access token').fill('e2e-access-token');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(`${GUARDED}/`);
  const chat = new ChatPage(page);
  await chat.hydrated();
  await chat.send('Why is the sky blue?');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(page.getByTestId('conversation-item')).toHaveCount(1);
  const storedKeys = () =>
    page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('pensive.')).length);
  expect(await storedKeys()).toBeGreaterThan(0);

  // Declined: nothing happens.
  page.once('dialog', (dialog) => dialog.dismiss());
  await page.getByTestId('sign-out-and-forget').click();
  await expect(page.getByTestId('conversation-item')).toHaveCount(1);
  await expect(page).toHaveURL(`${GUARDED}/`);

  // Accepted: signed out, and the history is gone from this browser.
  let asked = '';
  page.once('dialog', (dialog) => {
    asked = dialog.message();
    return dialog.accept();
  });
  await page.getByTestId('sign-out-and-forget').click();
  await expect(page).toHaveURL(`${GUARDED}/sign-in`);
  expect(asked).toContain('cannot be undone');
  expect(await storedKeys()).toBe(0);
  const databases = await page.evaluate(async () => (await indexedDB.databases()).map((d) => d.name));
  expect(databases).not.toContain('pensive');

  await page.getByLabel('Access token').fill('e2e-access-token');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(`${GUARDED}/`);
  await new ChatPage(page).hydrated();
  await expect(page.getByTestId('conversation-item')).toHaveCount(0);
  await expect(page.getByTestId('user-text')).toHaveCount(0);
});
