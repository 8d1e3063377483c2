import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect, test } from './fixtures/test';
import { ChatPage, MOCK_UPSTREAM } from './fixtures/chat-page';
import { expectWhole, question, until, upstreamRequests } from './fixtures/paced-turn';
import { storedText } from './fixtures/stored';
import type { APIRequestContext, BrowserContext, Page } from '@playwright/test';
import { TARGET } from '../target-dir';

// Two replicas sharing a Redis, behind nginx (issue 41, item 7): a turn runs
// on the replica that took its request, and the page follows, stops and
// answers it through the other. Real processes on 127.0.0.1: redis-server,
// two `pensive serve` with PENSIVE_REDIS_URL and an access token, nginx, and
// the suite's mock upstream. The production site file balances by
// least_conn, which cannot promise "the other" replica; this file's nginx
// sends a request to replica B when its `replica=b` cookie is set and to A
// otherwise, so each step names its replica (tests/proxy_nginx.rs runs the
// production file). Ports 3171-3174 belong to this file; one cluster serves
// every story, in order: the last one kills replica A.

const NGINX = 'http://127.0.0.1:3171';
const REPLICA = { a: '127.0.0.1:3172', b: '127.0.0.1:3173' } as const;
const REDIS_PORT = 3174;
const TOKEN = 'replicas-access-token';
// Where `mock:tools-write` writes (src/server/mock/tool_scripts.rs).
const FILES = '/tmp/pensive-e2e-files';
const STOPPED_REPLICA = 'Interrupted: the server that ran this turn stopped.';

const children = new Map<string, ChildProcess>();
let dir = '';

function start(name: string, command: string, args: string[], env: Record<string, string> = {}) {
  const child = spawn(command, args, { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'ignore' });
  children.set(name, child);
  return child;
}

async function kill(name: string) {
  const child = children.get(name);
  children.delete(name);
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  // nginx's master stops its workers on SIGTERM; killed, it would leave
  // them holding the port.
  child.kill(name === 'nginx' ? 'SIGTERM' : 'SIGKILL');
  await exited;
}

/** Polls `url` until it answers 200 (the child still alive). */
async function ready(name: string, url: string) {
  await expect
    .poll(
      async () => {
        const child = children.get(name);
        if (child?.exitCode != null) throw new Error(`${name} exited with ${child.exitCode}`);
        try {
          return (await fetch(url)).ok;
        } catch {
          return false;
        }
      },
      { timeout: 30_000 },
    )
    .toBe(true);
}

function nginxConf(): string {
  return `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log info;
events { worker_connections 128; }
http {
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  # nginx's workers cannot write to this (root's) temporary directory: the
  # debug bundle (12 MB) passes without a temporary file.
  proxy_max_temp_file_size 0;
  log_format replica '$request_method $uri upstream=$upstream_addr status=$status';
  access_log ${dir}/access.log replica;
  upstream replica_a { server ${REPLICA.a}; keepalive 16; }
  upstream replica_b { server ${REPLICA.b}; keepalive 16; }
  map $cookie_replica $replica { default replica_a; b replica_b; }
  server {
    listen ${NGINX.replace('http://', '')};
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_set_header Host $http_host;
    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    # As deploy/nginx/pensive.conf: a turn's stream passes unbuffered.
    location /api/ {
      proxy_pass http://$replica;
      proxy_buffering off;
      proxy_read_timeout 600s;
    }
    location / { proxy_pass http://$replica; }
  }
}
`;
}

function startReplica(name: 'a' | 'b') {
  start(name, `${TARGET}/debug/pensive`, ['serve'], {
    LEPTOS_SITE_ADDR: REPLICA[name],
    LEPTOS_SITE_ROOT: '../target/site',
    LEPTOS_ENV: 'PROD',
    PENSIVE_CONFIG: 'pensive-mocked.toml',
    PENSIVE_MCP_CONFIG: `${dir}/mcp.json`,
    PENSIVE_TOOL_HASHES: `${dir}/tool-hashes-${name}.json`,
    PENSIVE_REDIS_URL: `redis://127.0.0.1:${REDIS_PORT}/`,
    PENSIVE_ACCESS_TOKEN: TOKEN,
    PENSIVE_COOKIE_SECRET: 'replicas-cookie-secret-0123456789abcdef',
    PENSIVE_ALLOWED_HOSTS: NGINX.replace('http://', ''),
    PENSIVE_CLIENT_IP_HEADER: 'x-forwarded-for',
    MOCK_KEY: 'sk-SENTINEL-e2e-key-7f3a',
    RUST_LOG: 'info',
  });
  return ready(name, `http://${REPLICA[name]}/healthz`);
}

test.beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pensive-replicas-'));
  fs.mkdirSync(FILES, { recursive: true });
  fs.writeFileSync(
    `${dir}/mcp.json`,
    JSON.stringify({
      mcpServers: { files: { command: path.resolve('node_modules/.bin/mcp-server-filesystem'), args: [FILES], trusted: true } },
    }),
  );
  start('redis', 'redis-server', ['--port', String(REDIS_PORT), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
  fs.writeFileSync(`${dir}/nginx.conf`, nginxConf());
  const nginx = fs.existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx';
  start('nginx', nginx, ['-e', `${dir}/error.log`, '-p', dir, '-c', `${dir}/nginx.conf`, '-g', 'daemon off;']);
  await Promise.all([startReplica('a'), startReplica('b')]);
  await ready('nginx', `${NGINX}/healthz`);
});

test.afterAll(async () => {
  await Promise.all([...children.keys()].map(kill));
  fs.rmSync(dir, { recursive: true, force: true });
});

/** From now on this browser's requests go to replica `name`. */
async function through(context: BrowserContext, name: 'a' | 'b') {
  await context.addCookies([{ name: 'replica', value: name, url: NGINX }]);
}

async function signIn(page: Page): Promise<ChatPage> {
  await page.goto(`${NGINX}/sign-in`);
  await page.getByLabel('Access token').fill(TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(`${NGINX}/`);
  const chat = new ChatPage(page);
  await chat.hydrated();
  return chat;
}

async function activeTurns(name: 'a' | 'b'): Promise<number> {
  return (await (await fetch(`http://${REPLICA[name]}/healthz`)).json()).active_turns;
}

/** Provider streams the mock saw closed before their end. */
async function closedEarly(request: APIRequestContext): Promise<number> {
  return (await (await request.get(`${MOCK_UPSTREAM}/_mock/stats`)).json()).closed_early;
}

/** The replica nginx sent each `method uri` request to, in order. */
function servedBy(method: string, uri: string): string[] {
  return fs
    .readFileSync(`${dir}/access.log`, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith(`${method} ${uri} `))
    .map((line) => line.split('upstream=')[1]?.split(' ')[0] ?? '');
}

test('a turn started through one replica is watched whole through the other, which stops the next one', async ({ context, request }) => {
  await through(context, 'a');
  const first = await signIn(await context.newPage());
  const asked = question('replicas: watched through the other');
  await first.send(asked);
  await until(first, 'Thought 010');
  await expect.poll(() => storedText(first.page)).toContain('Thought 005');
  await first.page.close();
  expect(await activeTurns('a')).toBe(1);

  // A new page, every request of it through B: it attaches there and
  // follows the turn that runs on A, live, then whole.
  await through(context, 'b');
  const second = new ChatPage(await context.newPage());
  await second.open(NGINX);
  await expect(second.assistant()).toHaveAttribute('data-status', 'thinking');
  await until(second, 'Thought 100');
  expect(await activeTurns('b')).toBe(0);
  await expectWhole(second);
  expect(await upstreamRequests(request, asked)).toBe(1);
  expect(servedBy('POST', '/api/chat')).toEqual([REPLICA.a]);
  expect(servedBy('POST', '/api/turn_events')).toContain(REPLICA.b);

  // The next turn starts on A; the page, reloaded through B, stops it there.
  await through(context, 'a');
  await second.send(question('replicas: stopped through the other'));
  await until(second, 'Thought 010');
  await expect.poll(() => storedText(second.page)).toContain('Thought 005');
  await through(context, 'b');
  await second.page.reload();
  await second.hydrated();
  await until(second, 'Thought 030');
  const closedBefore = await closedEarly(request);
  await second.page.getByTestId('stop').click();
  await expect(second.assistant()).toHaveAttribute('data-status', 'stopped');
  // Logged once Stop has answered (after the provider's stream closed).
  await expect.poll(() => servedBy('POST', '/api/stop_turn')).toEqual([REPLICA.b]);
  // A closed the provider's stream at once (the turn had seconds to go).
  await expect.poll(() => closedEarly(request), { timeout: 3_000 }).toBe(closedBefore + 1);
  expect(await activeTurns('a')).toBe(0);
  expect(await second.assistant().getByTestId('answer').count()).toBe(0);
  await second.expectNoConsoleErrors();
});

test('an approval sent through the other replica runs the call where the turn runs', async ({ context, page }) => {
  const note = `${FILES}/note.txt`;
  fs.rmSync(note, { force: true });
  await through(context, 'a');
  const chat = await signIn(page);
  await page.getByTestId('model-picker').selectOption('mock-chat');
  await chat.send(`Save the note, through the other replica ${Date.now()}. mock:tools-write`);
  await expect(chat.assistant().getByTestId('tool-step')).toHaveAttribute('data-state', 'waiting');
  await expect.poll(() => storedText(page)).toContain('write_file');

  await through(context, 'b');
  await page.reload();
  await chat.hydrated();
  const step = chat.assistant().getByTestId('tool-step');
  await expect(step).toHaveAttribute('data-state', 'waiting');
  expect(fs.existsSync(note)).toBe(false);
  await step.getByTestId('allow-once').click();
  await expect(step).toHaveAttribute('data-state', 'done');
  await expect(chat.assistant()).toHaveAttribute('data-status', 'done');
  await expect.poll(() => servedBy('POST', '/api/tool_decision')).toEqual([REPLICA.b]);
  // Written by A's own filesystem server: the decision travelled to it.
  expect(fs.readFileSync(note, 'utf8')).toBe('Written after approval.');
  await chat.expectNoConsoleErrors();
});

test('a sign-out through one replica holds on the other', async ({ context, page, playwright }) => {
  await through(context, 'a');
  await signIn(page);
  const session = (await context.cookies(NGINX)).find((c) => c.name === 'pensive_access')!.value;
  const api = await playwright.request.newContext();
  const access = (replica: 'a' | 'b') =>
    api.post(`${NGINX}/api/access`, {
      headers: { cookie: `pensive_access=${session}; replica=${replica}`, origin: NGINX, 'content-type': 'application/json' },
      data: {},
    });
  expect((await access('b')).status()).toBe(200);
  await page.getByTestId('sign-out').click();
  await expect(page).toHaveURL(`${NGINX}/sign-in`);
  // A copy of the cookie, taken before the sign-out, is refused by both.
  expect((await access('b')).status()).toBe(401);
  expect((await access('a')).status()).toBe(401);
  await api.dispose();
});

test('killing the replica that runs a turn makes the page, attached through the other, say so within 10 s', async ({ context, page }) => {
  await through(context, 'a');
  const chat = await signIn(page);
  await chat.send(question('replicas: the running replica dies'));
  await until(chat, 'Thought 010');
  await expect.poll(() => storedText(page)).toContain('Thought 005');
  await through(context, 'b');
  await page.reload();
  await chat.hydrated();
  await until(chat, 'Thought 030');

  await kill('a');
  const turn = chat.assistant();
  await expect(turn).toHaveAttribute('data-status', 'error', { timeout: 10_000 });
  await expect(turn.getByTestId('turn-error')).toContainText(STOPPED_REPLICA);
  // What arrived stays readable.
  await expect(chat.body(chat.thinking(turn))).toContainText('Thought 030');
  await expect(chat.composer).toBeEnabled();
});
