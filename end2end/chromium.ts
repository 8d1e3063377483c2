/**
 * How every Playwright run here launches a browser: Debian's Chromium (never a
 * downloaded one), with the flags this closed network needs (no background
 * fetches that would be refused).
 */
export const chromiumLaunch = {
  executablePath: '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};
