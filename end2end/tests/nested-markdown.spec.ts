import { expect, test } from './fixtures/test';
import * as fs from 'fs';
import type { Page } from '@playwright/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';

/**
 * No text can hold the page (issue 21, item 1). The renderer (Markdown, the
 * sanitizer, math, highlighting) runs in a Web Worker (src/render_worker.js,
 * src/app/lazy_renderer/mod.rs): the page only applies the sanitized fragments
 * that come back. mock:nested-markdown streams 100 KB of nested list markers
 * as reasoning and 100 KB of nested quote markers as the answer, the input
 * whose quadratic parse froze the tab (and froze it again on every reload).
 */

/** Before the app loads: the view's own main-thread time, and how long each click waited. */
function watchPage() {
  (window as any).__pensivePerf = {};
  (window as any).__clickWaits = [];
  // A trusted event's timeStamp is when the input arrived: the difference is
  // how long the main thread kept the click waiting.
  document.addEventListener(
    'click',
    (event) => (window as any).__clickWaits.push(performance.now() - event.timeStamp),
    true,
  );
}

async function clickWaits(page: Page): Promise<number[]> {
  return page.evaluate(() => (window as any).__clickWaits as number[]);
}

/** Main-thread time the streaming views spent: asking the renderer, and applying its frames. */
async function viewMainThreadMs(page: Page): Promise<{ asking: number; applying: number; worker: number }> {
  return page.evaluate(() => {
    const perf = (window as any).__pensivePerf;
    return { asking: perf.streamRenderMs ?? 0, applying: perf.streamPageMs ?? 0, worker: perf.streamWorkerMs ?? 0 };
  });
}

test('100 KB of nested quotes and lists streams and reloads while every click is handled within 100 ms', async ({ page }) => {
  test.setTimeout(120_000);
  await page.addInitScript(watchPage);
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await expect(page.locator('body[data-renderer="ready"]')).toBeAttached();

  await chat.send('Nest everything mock:nested-markdown');
  const turn = chat.assistant();
  await expect(turn).toHaveAttribute('data-status', 'thinking');
  // A reader clicks about while it streams: on their question, again and again.
  const question = (await page.getByTestId('user-text').last().boundingBox())!;
  const clickQuestion = () => page.mouse.click(question.x + 10, question.y + question.height / 2);
  let clicksWhileStreaming = 0;
  while ((await turn.getAttribute('data-status')) !== 'done' && clicksWhileStreaming < 300) {
    await clickQuestion();
    clicksWhileStreaming++;
  }
  await expect(turn).toHaveAttribute('data-status', 'done', { timeout: 60_000 });
  expect(clicksWhileStreaming, 'clicks made while the turn streamed').toBeGreaterThanOrEqual(5);

  // Formatted to the nesting cap (src/app/markdown/mod.rs): the levels past it
  // are not written, their text stays at the deepest one.
  const answer = turn.getByTestId('answer');
  await expect(answer.locator('blockquote')).toHaveCount(32);
  await expect(answer.locator('blockquote').last()).toHaveText('x');
  const reasoning = chat.body(chat.thinking(turn));
  await chat.header(chat.thinking(turn)).click();
  await expect(reasoning.locator('li').last()).toHaveText('x');
  const lists = await reasoning.locator('ul').count();
  expect(lists).toBeGreaterThan(1);
  expect(lists).toBeLessThanOrEqual(32);

  const streamed = await clickWaits(page);
  expect(streamed.length).toBeGreaterThanOrEqual(clicksWhileStreaming);
  expect(Math.max(...streamed), `click waits while streaming (ms): ${streamed.map(Math.round)}`).toBeLessThan(100);
  const streaming = await viewMainThreadMs(page);
  console.log('while streaming: longest click wait (ms)', Math.max(...streamed), 'of', streamed.length, '; views (ms):', streaming);

  // A reload renders both texts whole from history, at once.
  await page.reload();
  await chat.hydrated();
  const reloaded = chat.assistant().getByTestId('answer');
  for (let i = 0; i < 10; i++) await clickQuestion();
  await expect(reloaded.locator('blockquote')).toHaveCount(32);
  await expect(reloaded.locator('blockquote').last()).toHaveText('x');
  for (let i = 0; i < 10; i++) await clickQuestion();
  const afterReload = await clickWaits(page);
  expect(afterReload.length).toBe(20);
  expect(Math.max(...afterReload), `click waits after the reload (ms): ${afterReload.map(Math.round)}`).toBeLessThan(100);
  // All the rendering of 100 KB of nesting cost the main thread under 50 ms:
  // the worker did the rest.
  const history = await viewMainThreadMs(page);
  console.log('after the reload: longest click wait (ms)', Math.max(...afterReload), '; views (ms):', history);
  expect(history.worker, 'the worker did the rendering').toBeGreaterThan(0);
  expect(history.asking + history.applying).toBeLessThan(50);
  await chat.expectNoConsoleErrors();
});

test('a text the renderer is stuck on is cut short and shown plain with a notice; the rest of the page keeps rendering', async ({ page }, testInfo) => {
  test.setTimeout(90_000);
  // The suite's hook (src/app/lazy_renderer/worker.rs): the worker spins on
  // any text holding this word, as a pathological input would.
  await page.addInitScript(() => {
    (window as any).__pensiveRenderTest = { stallOn: 'STALL-HERE' };
  });
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('First question mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('answer').locator('strong')).toHaveText('42');

  // A conversation whose second answer the renderer is stuck on.
  const [json] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-json').click()]);
  const envelope = JSON.parse(fs.readFileSync((await json.path())!, 'utf8'));
  const messages = envelope.conversation.messages;
  const stuck = JSON.parse(JSON.stringify(messages.slice(0, 2)));
  const stuckAnswer = stuck[1].blocks.find((b: any) => b.kind === 'answer');
  stuckAnswer.text = 'A **stuck** answer: STALL-HERE\n\nwith more after it.';
  envelope.conversation.messages = [...messages, ...stuck, ...JSON.parse(JSON.stringify(messages))];
  envelope.conversation.id = 'stuck-conversation';
  const file = testInfo.outputPath('stuck.json');
  fs.writeFileSync(file, JSON.stringify(envelope));
  await page.getByTestId('import-json').setInputFiles(file);

  const answers = page.getByTestId('answer');
  await expect(answers).toHaveCount(3);
  // The stuck one, after the deadline: its text as written, and why.
  await expect(answers.nth(1).getByRole('note')).toHaveText(
    'This text took too long to format, so it is shown as plain text.',
    { timeout: 10_000 },
  );
  await expect(answers.nth(1)).toContainText('A **stuck** answer: STALL-HERE');
  await expect(answers.nth(1)).toContainText('with more after it.');
  await expect(answers.nth(1).locator('strong')).toHaveCount(0);
  // The worker was replaced, and the others are formatted.
  await expect(page.locator('body[data-renderer-restarts="1"]')).toBeAttached();
  await expect(answers.nth(0).locator('strong')).toHaveText('42');
  await expect(answers.nth(2).locator('strong')).toHaveText('42');

  // And the new worker renders what comes next.
  await chat.send('Next question mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(chat.assistant().getByTestId('answer').locator('strong')).toHaveText('42');
  await expect(page.locator('body[data-renderer="ready"]')).toBeAttached();
});
