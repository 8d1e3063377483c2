import { spawn, type ChildProcess } from 'child_process';
import * as path from 'path';
import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED } from './fixtures/chat-page';
import { TARGET } from '../target-dir';

/**
 * A turn that ends with no answer text says so plainly, and mentions thinking
 * only when the model really reasoned (no-answer.spec.ts has that case).
 */

/** This story's own server: the mock upstream's models with the kill switch on. */
const KILL_SWITCH_PORT = 3150;
const KILL_SWITCH = `http://127.0.0.1:${KILL_SWITCH_PORT}`;

let server: ChildProcess | undefined;

test.beforeAll(async () => {
  const end2end = path.resolve(__dirname, '..');
  server = spawn(path.resolve(end2end, TARGET, 'debug', 'pensive'), ['serve'], {
    cwd: end2end,
    env: {
      ...process.env,
      LEPTOS_SITE_ADDR: `127.0.0.1:${KILL_SWITCH_PORT}`,
      LEPTOS_SITE_ROOT: '../target/site',
      LEPTOS_ENV: 'PROD',
      PENSIVE_CONFIG: 'pensive-mocked.toml',
      MOCK_KEY: 'sk-SENTINEL-e2e-key-7f3a',
      PENSIVE_SHOW_THINKING: '0',
    },
    stdio: 'ignore',
  });
  await expect
    .poll(async () => (await fetch(`${KILL_SWITCH}/healthz`).catch(() => undefined))?.status, { timeout: 30_000 })
    .toBe(200);
});

test.afterAll(() => {
  server?.kill();
});

async function expectPlainEmptyAnswer(chat: ChatPage) {
  const turn = chat.assistant();
  await expect(turn).toHaveAttribute('data-status', 'done');
  await expect(turn.getByTestId('empty-outcome')).toHaveText('The model returned an empty answer.');
  expect(await turn.innerText()).not.toMatch(/think|thought|reason/i);
  await expect(turn.getByTestId('thinking-block')).toHaveCount(0);
}

test('an empty answer with no reasoning says so and never mentions thinking', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(MOCKED);
  await chat.send('mock:empty-answer');
  await expectPlainEmptyAnswer(chat);
  await chat.expectNoConsoleErrors();
});

test('with the kill switch on, a model that reasoned but did not answer shows a plain empty answer', async ({ page }) => {
  const chat = new ChatPage(page);
  await chat.open(KILL_SWITCH);
  // The model reasons, then stops without an answer: the switch hides the reasoning.
  await chat.send('mock:no-answer');
  await expectPlainEmptyAnswer(chat);
  await chat.expectNoConsoleErrors();
});
