import * as fs from 'fs';
import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';
import { expectWhole, question, until, upstreamRequests } from './fixtures/paced-turn';
import { storedText } from './fixtures/stored';
import type { Page } from '@playwright/test';

// A turn runs on the server to its end (issue 41): closing the page,
// reloading it, opening another conversation or losing the network cancels
// nothing, and the page attaches again where it left off (the paced turn:
// fixtures/paced-turn.ts).

async function openMocked(page: Page): Promise<ChatPage> {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  return chat;
}

test('a page closed mid-thinking and a new one opened later follows the turn live, then shows it whole, from one request', async ({ context, request }) => {
  const first = await openMocked(await context.newPage());
  const asked = question('closed page');
  await first.send(asked);
  await until(first, 'Thought 020');
  // Kept with the turn so the next page can attach (saved at most once a second).
  await expect.poll(() => storedText(first.page)).toContain('Thought 010');
  await first.page.close();

  const second = await openMocked(await context.newPage());
  // The turn went on without a page: the next one shows it still thinking,
  // live, with pieces no page was there to see.
  await expect(second.assistant()).toHaveAttribute('data-status', 'thinking');
  await until(second, 'Thought 120');
  await expectWhole(second);
  expect(await upstreamRequests(request, asked)).toBe(1);
  await second.expectNoConsoleErrors();
});

test('a reload mid-thinking and another mid-answer lose nothing and ask the provider once', async ({ page, request }) => {
  const chat = await openMocked(page);
  const asked = question('reloads');
  await chat.send(asked);
  await until(chat, 'Thought 030');
  await expect.poll(() => storedText(page)).toContain('Thought 020');
  await page.reload();
  await chat.hydrated();
  await until(chat, 'Thought 100');
  await expect(chat.assistant().getByTestId('answer')).toContainText('Answer 05', { timeout: 30_000 });
  await expect.poll(() => storedText(page)).toContain('Answer 03');
  await page.reload();
  await chat.hydrated();
  await expectWhole(chat);
  expect(await upstreamRequests(request, asked)).toBe(1);
  await chat.expectNoConsoleErrors();
});

test('a new conversation mid-answer leaves the first one running; coming back shows it whole', async ({ page, request }) => {
  const chat = await openMocked(page);
  const asked = question('new conversation');
  await chat.send(asked);
  await until(chat, 'Thought 010');
  await page.getByTestId('new-conversation').click();
  await expect(page.getByTestId('assistant-message')).toHaveCount(0);
  // Back to it from the list.
  await page.getByTestId('conversation-item').filter({ hasText: asked.slice(0, 20) }).getByRole('button').first().click();
  await expectWhole(chat);
  expect(await upstreamRequests(request, asked)).toBe(1);
  await chat.expectNoConsoleErrors();
});

// A network that drops for a while (the connection cut, then refused, then
// back) is connection-lost.spec.ts's story: Chromium's offline mode leaves an
// established stream running, so it cannot stand in for it here.

test('a second tab follows the running turn and stops it; the first tab sees it stopped', async ({ context }) => {
  const first = await openMocked(await context.newPage());
  await first.send(question('second tab'));
  await until(first, 'Thought 010');
  const second = await openMocked(await context.newPage());
  await until(second, 'Thought 040');
  await second.page.getByTestId('stop').click();
  await expect(second.assistant()).toHaveAttribute('data-status', 'stopped');
  await expect(first.assistant()).toHaveAttribute('data-status', 'stopped');
  // Nothing more arrives in either: the answer never appears.
  expect(await first.assistant().getByTestId('answer').count()).toBe(0);
  await first.expectNoConsoleErrors();
  await second.expectNoConsoleErrors();
});

test('a write waiting for approval still waits after a reload, and Allow once runs it', async ({ page }) => {
  const note = '/tmp/pensive-e2e-files/note.txt';
  fs.rmSync(note, { force: true });
  const chat = await openMocked(page);
  await page.getByTestId('model-picker').selectOption('mock-chat');
  await chat.send(`Save the note, after a reload ${Date.now()}. mock:tools-write`);
  let step = chat.assistant().getByTestId('tool-step');
  await expect(step).toHaveAttribute('data-state', 'waiting');
  // Saved with the turn (and its way back to the run) before the page goes.
  await expect.poll(() => storedText(page)).toContain('write_file');
  await page.reload();
  await chat.hydrated();
  step = chat.assistant().getByTestId('tool-step');
  await expect(step).toHaveAttribute('data-state', 'waiting');
  await expect(chat.assistant()).not.toHaveAttribute('data-status', 'stopped');
  expect(fs.existsSync(note)).toBe(false);
  await step.getByTestId('allow-once').click();
  await expect(step).toHaveAttribute('data-state', 'done');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('answer')).toContainText('The tool said: Successfully wrote');
  expect(fs.readFileSync(note, 'utf8')).toBe('Written after approval.');
  await chat.expectNoConsoleErrors();
});
