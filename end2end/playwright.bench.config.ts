import { defineConfig } from '@playwright/test';
import { chromiumLaunch } from './chromium';

// Browser benchmarks (bench/browser.sh, docs/benchmarks-browser.md): release
// builds copied to ../target/bench by the script, on ports 7000-7099 so they
// never meet the test suite's servers. Debian's Chromium (chromium.ts).

export const BENCH_PORT = 7001;
export const BENCH_MOCK_PORT = 7002;
export const BARE_PORT = 7011;

export default defineConfig({
  testDir: './bench',
  testMatch: /.*\.bench\.ts/,
  timeout: 300_000,
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  use: {
    launchOptions: chromiumLaunch,
    trace: 'off',
  },
  webServer: [
    {
      // The mock provider; bench-render paces itself, so no --delay-ms.
      command: `../target/bench/bin/pensive mock-upstream --addr 127.0.0.1:${BENCH_MOCK_PORT}`,
      url: `http://127.0.0.1:${BENCH_MOCK_PORT}/_mock/stats`,
      reuseExistingServer: false,
      timeout: 60_000,
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      command: '../target/bench/bin/pensive serve',
      url: `http://127.0.0.1:${BENCH_PORT}/`,
      reuseExistingServer: false,
      timeout: 60_000,
      env: {
        LEPTOS_SITE_ADDR: `127.0.0.1:${BENCH_PORT}`,
        LEPTOS_SITE_ROOT: '../target/bench/site',
        LEPTOS_ENV: 'PROD',
        PENSIVE_CONFIG: 'bench/pensive-bench.toml',
        MOCK_KEY: 'sk-bench-key',
        RUST_LOG: 'warn',
      },
      stdout: 'ignore',
      stderr: 'pipe',
    },
    {
      command: '../target/bench/bin/bare-app',
      url: `http://127.0.0.1:${BARE_PORT}/`,
      reuseExistingServer: false,
      timeout: 60_000,
      env: {
        LEPTOS_SITE_ADDR: `127.0.0.1:${BARE_PORT}`,
        LEPTOS_SITE_ROOT: '../target/bench/bare-site',
        LEPTOS_ENV: 'PROD',
      },
      stdout: 'ignore',
      stderr: 'pipe',
    },
  ],
});
