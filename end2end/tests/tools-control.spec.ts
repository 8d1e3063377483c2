import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';
import type { Locator, Page } from '@playwright/test';

// The Tools control: each tool server and its tools, what each server claims
// about them (shown as its claim), whether a call asks first, and a switch
// per server for this conversation that decides what the model is offered.

const SHOTS = '../docs/screenshots/issue-31';

async function openTools(page: Page): Promise<Locator> {
  const button = page.getByTestId('tools-button');
  await expect(page.getByTestId('tools-panel')).toHaveCount(0);
  await button.click();
  await expect(button).toHaveAttribute('aria-expanded', 'true');
  return page.getByTestId('tools-panel');
}

function server(panel: Locator, name: string): Locator {
  return panel.locator(`[data-testid="tools-server"][data-server="${name}"]`);
}

function tool(panel: Locator, serverName: string, name: string): Locator {
  return server(panel, serverName).locator(`[data-testid="tools-tool"][data-tool="${name}"]`);
}

test('Tools lists every server and its tools, with annotations as the server\'s claims', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  const panel = await openTools(page);
  const servers = panel.getByTestId('tools-server');
  await expect(servers.first()).toHaveAttribute('data-server', 'builtin');
  const names = await servers.evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-server')));
  expect(names).toEqual(expect.arrayContaining(['builtin', 'files', 'slow']));
  // Every server is on in a new conversation, the built-in one too.
  for (const name of ['builtin', 'files', 'slow']) {
    await expect(panel.getByRole('switch', { name, exact: true })).toBeChecked();
  }
  // Built-in tools make no claims and run without asking.
  await expect(tool(panel, 'builtin', 'calculate').getByTestId('tool-asks')).toHaveText('runs without asking');
  await expect(tool(panel, 'builtin', 'calculate').getByTestId('tool-claim')).toHaveCount(0);
  // A trusted server's read-only claim: believed, so the call runs at once…
  const read = tool(panel, 'files', 'read_text_file');
  await expect(read.getByTestId('tool-claim')).toHaveText(['server says: read-only', 'server says: stays within its server']);
  await expect(read.getByTestId('tool-asks')).toHaveText('runs without asking');
  // …while a tool that says it may destroy asks first.
  const write = tool(panel, 'files', 'write_file');
  await expect(write.getByTestId('tool-claim')).toContainText(['server says: destructive']);
  await expect(write.getByTestId('tool-asks')).toHaveText('asks you first');
  await expect(server(panel, 'slow').getByTestId('tools-tool').first()).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/tools-control-desktop-light.png` });

  // Escape closes the panel and gives the focus back to its button.
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('tools-panel')).toHaveCount(0);
  await expect(page.getByTestId('tools-button')).toBeFocused();
  await chat.expectNoConsoleErrors();
});

test('A server switched off is not offered in this conversation, stays off after a reload, and a new conversation has it on', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open();
  const count = page.getByTestId('tools-count');
  await expect(count).toHaveText('2');

  // With builtin on, the demo calls calculate: the step this story expects
  // to disappear is really there first.
  await chat.send('What is 17 * 23?');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('tool-step')).toHaveCount(1);

  // Off, with the keyboard.
  const panel = await openTools(page);
  const builtin = panel.getByRole('switch', { name: 'builtin', exact: true });
  await builtin.focus();
  await page.keyboard.press('Space');
  await expect(builtin).not.toBeChecked();
  await expect(count).toHaveText('0');
  await page.keyboard.press('Escape');

  const sent = page.waitForRequest((r) => r.url().endsWith('/api/chat'));
  await chat.send('What is 17 * 23?');
  expect((await sent).postDataJSON().request.tools).toEqual([]);
  const second = chat.assistant();
  await expect(second).toHaveAttribute('data-status', 'done');
  await expect(second.getByTestId('answer')).not.toBeEmpty();
  await expect(second.getByTestId('tool-step')).toHaveCount(0);
  await expect(page.getByTestId('assistant-message')).toHaveCount(2);

  // Kept with the conversation.
  await page.reload();
  await chat.hydrated();
  await expect(page.getByTestId('assistant-message')).toHaveCount(2);
  await expect(count).toHaveText('0');
  const reopened = await openTools(page);
  await expect(reopened.getByRole('switch', { name: 'builtin', exact: true })).not.toBeChecked();
  await page.keyboard.press('Escape');

  // A new conversation starts with every server on.
  await page.getByTestId('new-conversation').click();
  await expect(page.getByTestId('assistant-message')).toHaveCount(0);
  await expect(count).toHaveText('2');
  const fresh = page.waitForRequest((r) => r.url().endsWith('/api/chat'));
  await chat.send('What is 17 * 23?');
  expect((await fresh).postDataJSON().request.tools).toBeUndefined();
  await expect(chat.assistant().getByTestId('tool-step')).toHaveCount(1);
  await chat.expectNoConsoleErrors();
});

test('On a phone in dark mode the Tools control fits the screen', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 740 });
  await page.emulateMedia({ colorScheme: 'dark' });
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  const button = page.getByTestId('tools-button');
  const box = await button.boundingBox();
  expect(box!.x + box!.width).toBeLessThanOrEqual(375);
  const panel = await openTools(page);
  await expect(server(panel, 'files')).toBeVisible();
  const panelBox = await panel.boundingBox();
  expect(panelBox!.x).toBeGreaterThanOrEqual(0);
  expect(panelBox!.x + panelBox!.width).toBeLessThanOrEqual(375);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBe(0);
  await page.screenshot({ path: `${SHOTS}/tools-control-phone-dark.png` });
  await chat.expectNoConsoleErrors();
});

test('At desktop width the Tools panel stays on the screen whatever stands before the button', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  // A model with an effort picker pushes the button right.
  await page.getByTestId('model-picker').selectOption('mock-ollama');
  const panel = await openTools(page);
  const box = await panel.boundingBox();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(1280);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBe(0);
  await chat.expectNoConsoleErrors();
});
