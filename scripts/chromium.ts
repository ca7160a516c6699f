// The Chromium the browser tests, the screenshots and Lighthouse run: Debian's, with nothing of its
// own (updates, sync, QUIC) on the network, and no sandbox or GPU, which containers lack.
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
