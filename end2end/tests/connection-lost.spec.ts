import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';
import { expect, test } from './fixtures/test';
import { ChatPage } from './fixtures/chat-page';
import { storedText } from './fixtures/stored';
import type { Page } from '@playwright/test';
import { TARGET } from '../target-dir';

// Losing Pensive itself mid-turn (not the provider: that is an in-band error,
// see interrupted.spec.ts). Each story runs its own server so it can be
// killed; ports 3151-3154 belong to this file.

const UNREACHABLE = 'Could not reach Pensive';
const RESTARTED = 'Interrupted: the server restarted';
const NOT_HELD = 'The server no longer holds this turn';
const REASONING = 'Identifying the core question';
const ANSWER = "Pensive's built-in demo model";

const servers = new Set<ChildProcess>();

/** Starts `pensive serve` on the demo model at `pace` and waits until it answers. */
async function startPensive(port: number, pace: string, env: Record<string, string> = {}): Promise<ChildProcess> {
  const child = spawn(`${TARGET}/debug/pensive`, ['serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      LEPTOS_SITE_ADDR: `127.0.0.1:${port}`,
      LEPTOS_SITE_ROOT: '../target/site',
      LEPTOS_ENV: 'PROD',
      PENSIVE_DEMO_PACE: pace,
      ...env,
    },
    stdio: 'ignore',
  });
  servers.add(child);
  child.on('exit', () => servers.delete(child));
  await expect
    .poll(
      async () => {
        if (child.exitCode !== null) throw new Error(`pensive exited with ${child.exitCode}`);
        try {
          return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
        } catch {
          return false;
        }
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  return child;
}

async function kill(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

/**
 * A TCP proxy in front of Pensive, as a reverse proxy or a network path is:
 * `cut()` drops every connection through it at once, mid-byte if need be,
 * while Pensive itself keeps running; `down()` refuses new connections
 * until `up()` (the way is gone for a while).
 */
async function startProxy(port: number, target: number) {
  const sockets = new Set<net.Socket>();
  let refusing = false;
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {}); // the cut itself resets the other side
  };
  const server = net.createServer((client) => {
    if (refusing) {
      client.on('error', () => {});
      client.destroy();
      return;
    }
    const upstream = net.connect(target, '127.0.0.1');
    track(client);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  proxies.add(server);
  return {
    cut: () => sockets.forEach((s) => s.destroy()),
    down: () => {
      refusing = true;
      sockets.forEach((s) => s.destroy());
    },
    up: () => {
      refusing = false;
    },
  };
}

const proxies = new Set<net.Server>();

test.afterEach(async () => {
  await Promise.all([...servers].map(kill));
  for (const proxy of proxies) proxy.close();
  proxies.clear();
});

/** The header label now, and two seconds later: a live timer ticks at 1 Hz. */
async function expectFrozen(page: Page, header: ReturnType<ChatPage['header']>) {
  const before = await header.textContent();
  // Nothing to wait for here: this checks that nothing changes over time.
  await page.waitForTimeout(2_200);
  await expect(header).toHaveText(before!);
}

/** The turn's reasoning (its block opened) and answer text, as shown. */
async function shownText(chat: ChatPage) {
  const block = chat.thinking();
  if ((await chat.header(block).getAttribute('aria-expanded')) !== 'true') await chat.header(block).click();
  return {
    reasoning: ((await chat.body(block).textContent()) ?? '').trim(),
    answer: ((await chat.assistant().getByTestId('answer').textContent()) ?? '').trim(),
  };
}

test('the server killed mid-reasoning: the page reconnects, then says the server restarted, keeps the turn through a reload, and Retry works', async ({
  page,
}) => {
  const port = 3151;
  const base = `http://127.0.0.1:${port}`;
  // Slow enough that the kill lands well inside the reasoning.
  let server = await startPensive(port, '2');
  const chat = new ChatPage(page);
  await chat.open(base);
  await chat.send('Why is the sky blue?');
  const turn = chat.assistant();
  const block = chat.thinking(turn);
  const header = chat.header(block);
  await expect(chat.body(block)).toContainText(REASONING);
  await expect(header).toHaveText(/^Thinking… \d+s/);

  await kill(server);
  // The page cannot tell a dead server from a dropped network yet: it tries
  // to reach the turn again, saying so.
  await expect(page.getByTestId('status')).toHaveText('Reconnecting…');
  await expect(turn).toHaveAttribute('data-status', 'thinking');

  // The server comes back (faster, to keep the test short): another run of
  // it, which never held the turn.
  server = await startPensive(port, '0.2');
  await expect(turn).toHaveAttribute('data-status', 'error', { timeout: 30_000 });
  await expect(turn.getByTestId('turn-error')).toContainText(RESTARTED);
  await expect(header).toHaveText(/^Stopped after \d+s/);
  const stopped = await header.textContent();
  await expectFrozen(page, header);
  // The reasoning that arrived stays readable, where it was.
  await expect(chat.body(block)).toContainText(REASONING);
  await expect(chat.composer).toBeEnabled();
  await expect(turn.getByTestId('answer')).toHaveCount(0);

  await page.reload();
  await chat.hydrated();
  const kept = chat.assistant();
  await expect(kept).toHaveAttribute('data-status', 'error');
  await expect(chat.header(chat.thinking(kept))).toHaveText(stopped!);
  await expect(kept.getByTestId('turn-error')).toContainText(RESTARTED);
  await chat.header(chat.thinking(kept)).click();
  await expect(chat.body(chat.thinking(kept))).toContainText(REASONING);

  // Retry asks again; nothing before the click is a finished answer.
  await kept.getByTestId('retry').click();
  await expect(page.getByTestId('assistant-message')).toHaveCount(1);
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(chat.assistant().getByTestId('answer')).toContainText(ANSWER);
  await expect(chat.assistant().getByTestId('turn-error')).toHaveCount(0);
});

test('the connection cut mid-reasoning and down for a while: the page reconnects and the turn resumes whole; a new turn while the way is down fails plainly', async ({
  page,
}) => {
  // How the connection is cut. Playwright's page.route cannot cut a stream
  // that is already flowing, and context.setOffline(true) leaves an
  // established stream running in Chromium (tried: the turn went on to its
  // answer). So the page talks to Pensive through a TCP proxy that drops
  // every connection at once and then refuses new ones for a while: the
  // browser sees the response body break off mid-chunk, exactly as when a
  // reverse proxy restarts or the network path goes.
  const port = 3152;
  // Behind a proxy the browser names the proxy's host, which Pensive must allow.
  const server = await startPensive(port, '1', { PENSIVE_ALLOWED_HOSTS: '127.0.0.1:3153' });
  const proxy = await startProxy(3153, port);
  const chat = new ChatPage(page);
  await chat.open('http://127.0.0.1:3153');
  // The whole turn, uninterrupted, to compare with (the demo is deterministic).
  await chat.send('Why is the sky blue?');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  const whole = await shownText(chat);
  await page.getByTestId('new-conversation').click();

  await chat.send('Why is the sky blue?');
  const turn = chat.assistant();
  const header = chat.header(chat.thinking(turn));
  await expect(chat.body(chat.thinking(turn))).toContainText(REASONING);
  await expect(header).toHaveText(/^Thinking… \d+s/);

  proxy.down();
  await expect(page.getByTestId('status')).toHaveText('Reconnecting…');
  // Seen too, above the composer, while the way is down.
  await expect(page.getByTestId('connection-note')).toBeVisible();
  // The turn runs on in Pensive meanwhile, its reader gone.
  expect((await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()).active_turns).toBe(1);
  proxy.up();
  await expect(turn).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(page.getByTestId('connection-note')).toHaveCount(0);
  // No piece twice, none missing: the same text as the uninterrupted turn.
  expect(await shownText(chat)).toEqual(whole);
  await expect(turn.getByTestId('turn-error')).toHaveCount(0);
  const stored = await storedText(page);
  expect(stored).toContain(REASONING);
  expect(server.exitCode).toBeNull();

  // No way through when a turn starts: it says so in plain words, and keeps Retry on offer.
  proxy.down();
  await chat.send('And at sunset?');
  await expect(chat.assistant().getByTestId('turn-error')).toContainText(UNREACHABLE);
  await expect(chat.assistant().getByTestId('turn-error')).not.toContainText('TypeError');

  // The way is back: Retry gets a whole answer.
  proxy.up();
  await chat.assistant().getByTestId('retry').click();
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
  await expect(chat.assistant().getByTestId('answer')).toContainText(ANSWER);
  await expect(chat.header(chat.thinking())).toHaveText(/^Thought for \d+s/);
});

test('a turn that ended while no page watched, past the retention time: the page says the server no longer holds it and keeps what it had', async ({
  context,
  request,
}) => {
  const port = 3154;
  const base = `http://127.0.0.1:${port}`;
  // Finished turns are kept 1 s here (30 minutes by default).
  await startPensive(port, '1', { PENSIVE_TURN_RETENTION_SECS: '1' });
  const first = new ChatPage(await context.newPage());
  await first.open(base);
  await first.send('Why is the sky blue?');
  await expect(first.body(first.thinking())).toContainText(REASONING);
  await expect.poll(() => storedText(first.page)).toContain(REASONING);
  // The page keeps the turn's way back to the server's run with the turn.
  const stored = await storedText(first.page);
  const run = /"turn_id":"([0-9a-f]+)","secret":"([0-9a-f]+)"/.exec(stored.replace(/\\"/g, '"'));
  expect(run, 'the run kept with the turn').not.toBeNull();
  const [, turnId, secret] = run!;
  await first.page.close();
  // The turn ends with no page watching, and its retention runs out; the
  // next turn's start sweeps it away.
  await expect
    .poll(async () => (await (await request.get(`${base}/healthz`)).json()).active_turns, { timeout: 30_000 })
    .toBe(0);
  await expect
    .poll(
      async () => {
        await request.post(`${base}/api/chat`, {
          data: { request: { messages: [{ role: 'user', content: 'sweep' }], effort: 'off' } },
        });
        const attach = await request.post(`${base}/api/turn_events`, {
          data: { turn_id: turnId, secret, after: 0 },
        });
        return attach.status();
      },
      { timeout: 10_000 },
    )
    .toBe(404);

  const page = await context.newPage();
  const chat = new ChatPage(page);
  await chat.open(base);
  const turn = chat.assistant();
  await expect(turn.getByTestId('turn-error')).toContainText(NOT_HELD);
  await expect(turn).toHaveAttribute('data-status', 'error');
  // What the first page had is kept, where it was.
  await chat.header(chat.thinking(turn)).click();
  await expect(chat.body(chat.thinking(turn))).toContainText(REASONING);
  await expect(chat.composer).toBeEnabled();
  // The browser reports the 404 it was answered with; nothing else went wrong.
  expect(chat.consoleErrors.filter((e) => !(e.includes('404') && e.includes('/api/turn_events')))).toEqual([]);
});
