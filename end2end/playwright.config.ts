import { defineConfig } from '@playwright/test';
import { chromiumLaunch } from './chromium';
import { TARGET } from './target-dir';

// Debian's Chromium (chromium.ts), against the built server.

export const DEMO_PORT = 3100;
/** A Pensive server talking to `pensive mock-upstream` (OpenAI Responses dialect). */
export const MOCKED_PORT = 3101;
export const MOCK_UPSTREAM_PORT = 4100;
/** The demo model with the kill switch on (PENSIVE_SHOW_THINKING=0) and a 64 KB body limit. */
export const NO_THINKING_PORT = 3102;
/** The demo model behind PENSIVE_ACCESS_TOKEN. */
export const GUARDED_PORT = 3103;

export default defineConfig({
  testDir: './tests',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${DEMO_PORT}`,
    launchOptions: chromiumLaunch,
    trace: 'off',
  },
  webServer: [
    {
      // The debug server binary built by `cargo leptos build`, on the demo model.
      command: `${TARGET}/debug/pensive serve`,
      url: `http://127.0.0.1:${DEMO_PORT}/`,
      reuseExistingServer: false,
      timeout: 60_000,
      env: {
        LEPTOS_SITE_ADDR: `127.0.0.1:${DEMO_PORT}`,
        LEPTOS_SITE_ROOT: '../target/site',
        LEPTOS_ENV: 'PROD',
        PENSIVE_DEMO_PACE: '0.6',
        // Turns run to their end whoever watches: a story that leaves one
        // mid-turn must not use up the next stories' turns (one client here).
        PENSIVE_MAX_TURNS_PER_CLIENT: '64',
        RUST_LOG: 'info',
      },
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      command: `${TARGET}/debug/pensive mock-upstream --addr 127.0.0.1:${MOCK_UPSTREAM_PORT} --delay-ms 60`,
      url: `http://127.0.0.1:${MOCK_UPSTREAM_PORT}/_mock/stats`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      // server-filesystem (mcp-e2e.json) needs its folder to exist; the
      // tool hashes start afresh each run (what the tools said last run is
      // not what this run's stories agreed to).
      command: `mkdir -p /tmp/pensive-e2e-files && rm -f /tmp/pensive-e2e-tool-hashes.json && ${TARGET}/debug/pensive serve`,
      url: `http://127.0.0.1:${MOCKED_PORT}/`,
      reuseExistingServer: false,
      timeout: 60_000,
      env: {
        LEPTOS_SITE_ADDR: `127.0.0.1:${MOCKED_PORT}`,
        LEPTOS_SITE_ROOT: '../target/site',
        LEPTOS_ENV: 'PROD',
        PENSIVE_CONFIG: 'pensive-mocked.toml',
        PENSIVE_MCP_CONFIG: 'mcp-e2e.json',
        PENSIVE_TOOL_HASHES: '/tmp/pensive-e2e-tool-hashes.json',
        MOCK_KEY: 'sk-SENTINEL-e2e-key-7f3a',
        PENSIVE_FIRST_TOKEN_TIMEOUT_SECS: '2',
        PENSIVE_MAX_TURNS_PER_CLIENT: '64',
        RUST_LOG: 'info',
      },
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      command: `${TARGET}/debug/pensive serve`,
      url: `http://127.0.0.1:${NO_THINKING_PORT}/`,
      reuseExistingServer: false,
      timeout: 60_000,
      env: {
        LEPTOS_SITE_ADDR: `127.0.0.1:${NO_THINKING_PORT}`,
        LEPTOS_SITE_ROOT: '../target/site',
        LEPTOS_ENV: 'PROD',
        PENSIVE_DEMO_PACE: '0.1',
        PENSIVE_SHOW_THINKING: '0',
        PENSIVE_MAX_BODY_BYTES: '65536',
      },
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      command: `${TARGET}/debug/pensive serve`,
      url: `http://127.0.0.1:${GUARDED_PORT}/healthz`,
      reuseExistingServer: false,
      timeout: 60_000,
      env: {
        LEPTOS_SITE_ADDR: `127.0.0.1:${GUARDED_PORT}`,
        LEPTOS_SITE_ROOT: '../target/site',
        LEPTOS_ENV: 'PROD',
        PENSIVE_DEMO_PACE: '0.1',
        PENSIVE_ACCESS_TOKEN: 'e2e-access-token',
      },
      stdout: 'ignore',
      stderr: 'pipe',
    },
  ],
});
