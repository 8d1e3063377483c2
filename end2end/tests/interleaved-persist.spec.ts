import * as fs from 'fs';
import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';
import type { Locator } from '@playwright/test';

/**
 * A turn that thinks, answers, thinks again and answers again must come back
 * exactly as it was: after a reload (history in localStorage) and after an
 * export followed by an import (the JSON file). "Exactly" means the same blocks
 * in the same order, each with its own header and its own text.
 */

type BlockSnapshot = { kind: string; header: string; text: string };

/**
 * What the user can see of a turn, block by block, in page order. Every
 * thinking block is opened first: a block replayed from history renders its
 * body only when opened, as a reader would do to read it.
 */
async function snapshot(turn: Locator): Promise<BlockSnapshot[]> {
  const headers = turn.getByTestId('thinking-block').locator('button.thinking-header');
  const count = await headers.count();
  for (let i = 0; i < count; i++) {
    if ((await headers.nth(i).getAttribute('aria-expanded')) === 'false') await headers.nth(i).click();
    await expect(headers.nth(i)).toHaveAttribute('aria-expanded', 'true');
    await expect(turn.getByTestId('thinking-block').nth(i).locator('.thinking-body')).not.toBeEmpty();
  }
  return turn.locator('[data-testid="thinking-block"], [data-testid="answer"]').evaluateAll((els) =>
    els.map((el) => {
      const kind = el.getAttribute('data-testid') ?? '';
      if (kind === 'answer') return { kind, header: '', text: (el.textContent ?? '').trim() };
      const header = (el.querySelector('button.thinking-header')?.textContent ?? '').trim();
      const text = (el.querySelector('.thinking-body')?.textContent ?? '').trim();
      return { kind, header, text };
    }),
  );
}

async function interleavedTurn(chat: ChatPage): Promise<BlockSnapshot[]> {
  await chat.open(MOCKED);
  await chat.send('Plan it in parts mock:several-blocks');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  const before = await snapshot(chat.assistant());
  // The premise: thinking and answer segments really interleave, each with text.
  expect(before.map((b) => b.kind)).toEqual(['thinking-block', 'thinking-block', 'answer', 'thinking-block', 'answer']);
  for (const block of before) expect(block.text).not.toEqual('');
  expect(before[0].text).toContain('First I look at the question.');
  expect(before[3].text).toContain('One more consideration.');
  return before;
}

test('an interleaved multi-block turn survives a reload unchanged', async ({ page }) => {
  const chat = new ChatPage(page);
  const before = await interleavedTurn(chat);

  await page.reload();
  await chat.hydrated();
  await expect(page.getByTestId('assistant-message')).toHaveCount(1);
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  expect(await snapshot(chat.assistant())).toEqual(before);
  await chat.expectNoConsoleErrors();
});

test('an interleaved multi-block turn survives export then import unchanged', async ({ page }, testInfo) => {
  const chat = new ChatPage(page);
  const before = await interleavedTurn(chat);

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
  const exported = fs.readFileSync((await download.path())!, 'utf8');
  const file = testInfo.outputPath('interleaved.json');
  fs.writeFileSync(file, exported);

  // Remove it, so what comes back can only come from the file.
  await page.getByTestId('conversation-item').first().getByTestId('delete').click();
  await expect(page.getByTestId('conversation-item')).toHaveCount(0);
  await expect(page.getByTestId('assistant-message')).toHaveCount(0);

  await page.getByTestId('import-json').setInputFiles(file);
  await expect(page.getByTestId('conversation-item')).toHaveCount(1);
  await expect(page.getByTestId('assistant-message')).toHaveCount(1);
  expect(await snapshot(chat.assistant())).toEqual(before);

  // And the file it exports now is the file that was imported.
  const [again] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
  expect(JSON.parse(fs.readFileSync((await again.path())!, 'utf8'))).toEqual(JSON.parse(exported));

  // The imported copy is stored too: a reload shows it the same way.
  await page.reload();
  await chat.hydrated();
  await expect(page.getByTestId('assistant-message')).toHaveCount(1);
  expect(await snapshot(chat.assistant())).toEqual(before);
  await chat.expectNoConsoleErrors();
});
