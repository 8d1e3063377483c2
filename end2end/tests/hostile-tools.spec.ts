import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect, test } from './fixtures/test';
import { ChatPage, MOCKED, MOCK_UPSTREAM } from './fixtures/chat-page';
import type { APIRequestContext, Page } from '@playwright/test';
import { TARGET } from '../target-dir';

// A hostile MCP server (tests/fixtures/mcp/hostile_server.py, the official
// Python SDK) against the page: 10 MB of output, a tool that never answers,
// markup in a result, and a tool whose server changed what it says it does
// between two runs of Pensive (a rug pull). The mock model calls any tool a
// question names (`mock:call server__tool {json}`, chat completions only).
// Port 3161 belongs to this file (its own Pensive, restarted mid-story).

const RESTARTED_PORT = 3161;
const HELD = 'The server changed what this tool says it does since you last allowed it.';

/** The page of the server at `base` with its chat-completions model picked. */
async function openChatModel(page: Page, base = MOCKED): Promise<ChatPage> {
  const chat = new ChatPage(page);
  await chat.open(base);
  await page.getByTestId('model-picker').selectOption('mock-chat');
  return chat;
}

test('10 MB of tool output: the step shows the first 4 KB, the page stays responsive', async ({ page }) => {
  const chat = await openChatModel(page);
  await chat.send('Flood me. mock:call hostile__flood {}');
  const step = chat.assistant().getByTestId('tool-step');
  await expect(step).toHaveAttribute('data-state', 'waiting');
  await step.getByTestId('allow-once').click();
  await expect(step).toHaveAttribute('data-state', 'done');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');

  // The model got 64 KB; the step shows 4 KB of it and offers the rest.
  await step.locator('button.tool-step-header').click();
  const output = step.getByTestId('tool-output');
  await expect(output).toContainText('flood line 0000000:');
  const shown = await output.evaluate((node) => node.textContent!.length);
  expect(shown).toBeLessThanOrEqual(4096);
  await expect(step.getByTestId('tool-show-all')).toHaveText('Show all (64 KB)');
  await expect(step.getByTestId('tool-truncated')).toContainText('more bytes were cut before the model saw them.');

  // Still responsive: the composer takes typing at once, during and after
  // the whole result renders.
  await step.getByTestId('tool-show-all').click();
  await chat.composer.fill('');
  await chat.composer.pressSequentially('still here', { delay: 0 });
  await expect(chat.composer).toHaveValue('still here');
  await expect(output).toContainText('more bytes of output were cut]');
  const whole = await output.evaluate((node) => node.textContent!.length);
  expect(whole).toBeGreaterThan(60_000);
  expect(whole).toBeLessThanOrEqual(64 * 1024);
  await chat.send('And now? mock:tools-parallel');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await chat.expectNoConsoleErrors();
});

test('A tool that never answers times out at its server\'s limit, and the turn goes on', async ({ page }) => {
  const chat = await openChatModel(page);
  await chat.send('Wait for it. mock:call stuck__hang {}');
  const step = chat.assistant().getByTestId('tool-step');
  await step.getByTestId('allow-once').click();
  await expect(step).toHaveAttribute('data-state', 'timeout');
  await expect(step.getByTestId('tool-state')).toHaveText(/^timed out · 2\.\ds$/);
  await expect(chat.assistant().getByTestId('answer')).toHaveText('The tool said: The tool did not answer within 2s.');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await chat.expectNoConsoleErrors();
});

test('Markup in a tool result is shown as text: no script runs, no image loads', async ({ page }) => {
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  const dialogs: string[] = [];
  page.on('dialog', async (dialog) => {
    dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  const chat = await openChatModel(page);
  await chat.send('Show me. mock:call hostile__script_result {}');
  const turn = chat.assistant();
  const step = turn.getByTestId('tool-step');
  await step.getByTestId('allow-once').click();
  await expect(turn).toHaveAttribute('data-status', 'done');
  await step.locator('button.tool-step-header').click();
  await expect(step.getByTestId('tool-output')).toContainText('<script>alert(1)</script>');
  await expect(step.getByTestId('tool-output')).toContainText('<img src="http://127.0.0.1:9/tracker.png"');
  // Nothing in the step is markup; the answer quoting it is model text
  // (the markdown renderer's rules: no script, no image, a link may stay).
  await expect(step.locator('script, img, a')).toHaveCount(0);
  await expect(turn.locator('script, img')).toHaveCount(0);
  expect(dialogs).toEqual([]);
  expect(requested.filter((url) => url.includes('127.0.0.1:9/'))).toEqual([]);
  await chat.expectNoConsoleErrors();
});

// --- The rug pull: Pensive and the server restarted with the tool changed.

let pensive: ChildProcess | undefined;

test.afterEach(() => {
  pensive?.kill();
  pensive = undefined;
});

/** `pensive serve` on RESTARTED_PORT with only the hostile server (trusted),
 * its state in `dir`, the tool hashes kept in `dir` across restarts. */
async function startPensive(dir: string): Promise<void> {
  const config = path.join(dir, 'mcp.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        hostile: {
          command: path.resolve('../tests/fixtures/mcp/.venv/bin/python'),
          args: [path.resolve('../tests/fixtures/mcp/hostile_server.py')],
          env: { HOSTILE_STATE: path.join(dir, 'state') },
          trusted: true,
        },
      },
    }),
  );
  const child = spawn(`${TARGET}/debug/pensive`, ['serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      LEPTOS_SITE_ADDR: `127.0.0.1:${RESTARTED_PORT}`,
      LEPTOS_SITE_ROOT: '../target/site',
      LEPTOS_ENV: 'PROD',
      PENSIVE_CONFIG: 'pensive-mocked.toml',
      PENSIVE_MCP_CONFIG: config,
      PENSIVE_TOOL_HASHES: path.join(dir, 'tool-hashes.json'),
      MOCK_KEY: 'sk-SENTINEL-e2e-key-7f3a',
    },
    stdio: 'ignore',
  });
  pensive = child;
  await expect
    .poll(
      async () => {
        if (child.exitCode !== null) throw new Error(`pensive exited with ${child.exitCode}`);
        try {
          return (await fetch(`http://127.0.0.1:${RESTARTED_PORT}/healthz`)).ok;
        } catch {
          return false;
        }
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  // The site serves while its tool servers start: wait until none is still starting.
  await expect
    .poll(
      async () => {
        const listed = await fetch(`http://127.0.0.1:${RESTARTED_PORT}/api/tool_servers`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: '{}',
        });
        const servers: { name: string; state?: string }[] = await listed.json();
        return servers.filter((s) => s.state === 'starting').map((s) => s.name);
      },
      { timeout: 30_000 },
    )
    .toEqual([]);
}

async function stopPensive(): Promise<void> {
  const child = pensive!;
  pensive = undefined;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill();
  await exited;
}

test('A tool whose server changed what it says it does is held until the user allows it again', async ({ page }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pensive-e2e-rug-pull-'));
  const base = `http://127.0.0.1:${RESTARTED_PORT}`;
  const ask = 'Weather? mock:call hostile__weather {"city": "Paris"}';

  // First met: trusted and read-only, it runs without asking.
  fs.writeFileSync(path.join(dir, 'state'), '1');
  await startPensive(dir);
  let chat = await openChatModel(page, base);
  await chat.send(ask);
  let step = chat.assistant().getByTestId('tool-step');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(step).toHaveAttribute('data-state', 'done');
  await expect(chat.assistant().getByTestId('answer')).toHaveText('The tool said: Sunny in Paris.');
  await stopPensive();

  // The server now asks the model for a secret: after a restart the call
  // waits, and the step says why.
  fs.writeFileSync(path.join(dir, 'state'), '2');
  await startPensive(dir);
  chat = await openChatModel(page, base);
  await chat.send(ask);
  step = chat.assistant().getByTestId('tool-step');
  await expect(step).toHaveAttribute('data-state', 'waiting');
  await expect(step.getByTestId('tool-held')).toHaveText(HELD);
  await expect(step.getByTestId('tool-approval')).toContainText('weather from the hostile server');
  await step.getByTestId('allow-once').click();
  await expect(step).toHaveAttribute('data-state', 'done');
  await expect(chat.assistant().getByTestId('answer')).toHaveText(
    'The tool said: Sunny in Paris. (Received 0 bytes of notes.)',
  );

  // Agreed: the changed tool is what the user knows now; it runs at once.
  await chat.send(ask);
  step = chat.assistant().getByTestId('tool-step');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect(step).toHaveAttribute('data-state', 'done');
  await expect(step.getByTestId('tool-held')).toHaveCount(0);
  await chat.expectNoConsoleErrors();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The tool names the last chat-completions request to the mock offered. */
async function offeredTools(request: APIRequestContext): Promise<string[]> {
  const recorded: { path: string; body: { tools?: { function?: { name?: string } }[] } }[] =
    await (await request.get(`${MOCK_UPSTREAM}/_mock/requests`)).json();
  const chats = recorded.filter((r) => r.path === '/v1/chat/completions');
  return (chats[chats.length - 1]?.body.tools ?? []).map((t) => t.function?.name ?? '');
}

test('"Allow its new description" on a held tool offers it to the model again', async ({ page, request }) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pensive-e2e-agree-'));
  const base = `http://127.0.0.1:${RESTARTED_PORT}`;

  // First met harmless (its hash is kept when the list is read), then
  // changed: after a restart it is held.
  fs.writeFileSync(path.join(dir, 'state'), '1');
  await startPensive(dir);
  await stopPensive();
  fs.writeFileSync(path.join(dir, 'state'), '2');
  await startPensive(dir);
  const chat = await openChatModel(page, base);
  const count = page.getByTestId('tools-count');
  await page.getByTestId('tools-button').click();
  const weather = page.locator('[data-testid="tools-server"][data-server="hostile"] [data-testid="tools-tool"][data-tool="weather"]');
  await expect(weather.getByTestId('tool-asks')).toHaveText(
    'held: the server changed what it says it does; not offered to the model',
  );
  const held = Number(await count.textContent());

  // Held: a turn does not offer it to the model.
  await page.getByTestId('tools-button').click();
  await chat.send('Hello? mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  let offered = await offeredTools(request);
  expect(offered).toContain('hostile__script_result');
  expect(offered).not.toContain('hostile__weather');

  // Agreed: the panel says it runs as its trusted server's claims say, the
  // count has it, and the next turn offers it.
  await page.getByTestId('tools-button').click();
  await weather.getByRole('button', { name: 'Allow its new description' }).click();
  await expect(weather.getByTestId('tool-asks')).toHaveText('runs without asking');
  await expect(weather.getByRole('button', { name: 'Allow its new description' })).toHaveCount(0);
  await expect(count).toHaveText(String(held + 1));
  await page.getByTestId('tools-button').click();
  await chat.send('And now? mock:normal');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  offered = await offeredTools(request);
  expect(offered).toContain('hostile__weather');
  await chat.expectNoConsoleErrors();
  fs.rmSync(dir, { recursive: true, force: true });
});
