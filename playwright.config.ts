// Browser tests in Debian's Chromium against the real server (fresh in-memory SQLite, demo data).
import { defineConfig } from '@playwright/test';
import { ACME_NAME, ACME_TENANT, ENTRA_CLIENT_ID, ENTRA_CLIENT_SECRET, entraPort } from './e2e/microsoftPeer.ts';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from './scripts/chromium.ts';

export const E2E_PORT = Number(process.env.E2E_PORT ?? 3100);
export const E2E_MAINTENANCE_PORT = E2E_PORT + 1;
/** The peers (SMTP on the next port, the SMS provider on the one after, then the Entra ID stand-in):
 * GET /inbox lists what the first two received. */
export const E2E_PEERS_PORT = E2E_PORT + 26;

const serverEnv = {
  SMTP_URL: `smtp://127.0.0.1:${E2E_PEERS_PORT + 1}`,
  SMS_PROVIDER_URL: `http://127.0.0.1:${E2E_PEERS_PORT + 2}/messages`,
  NODE_ENV: 'test',
  SQLITE_PATH: ':memory:',
  SEED_DEMO: 'true',
  SPA_DIR: 'dist',
  HOST: 'localhost',
  LOG_LEVEL: 'warn',
  LOGIN_MAX_FAILS_PER_USER_IP: '3',
  LOGIN_MAX_FAILS_PER_IP: '10000',
  // Every test signs in from one address: its own sending budget is the destination's.
  MFA_SENDS_PER_REQUESTER: '10',
  // The CAPTCHA is on, as in production, with challenges a test solves in a blink.
  CAPTCHA: 'true',
  CAPTCHA_COST: '10',
  CAPTCHA_MAX_COUNTER: '100',
  // Microsoft sign-in against the peers' stand-in for Entra ID, for one company.
  MICROSOFT_CLIENT_ID: ENTRA_CLIENT_ID,
  MICROSOFT_CLIENT_SECRET: ENTRA_CLIENT_SECRET,
  MICROSOFT_TENANTS: `${ACME_TENANT}=${ACME_NAME}`,
  MICROSOFT_AUTHORITY: `http://127.0.0.1:${entraPort(E2E_PEERS_PORT)}`,
};

export default defineConfig({
  testDir: 'e2e',
  fullyParallel: false,
  workers: 2,
  retries: 0,
  // Generous: a journey takes 20-35 s on an idle two-core machine, and two workers with their
  // Chromiums and the servers share those cores, so the same journey can take twice that.
  timeout: 90_000,
  expect: { timeout: 15_000 },
  forbidOnly: true,
  reporter: [
    ['list'],
    ['json', { outputFile: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ?? 'test-reports/playwright.json' }],
  ],
  use: {
    baseURL: `http://account.localhost:${E2E_PORT}`,
    trace: 'retain-on-failure',
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS },
  },
  webServer: [
    {
      command: `node e2e/peers.ts ${E2E_PEERS_PORT} ${E2E_PORT}`,
      url: `http://127.0.0.1:${E2E_PEERS_PORT}/health`,
      reuseExistingServer: false,
      timeout: 30_000,
    },
    {
      command: 'node scripts/serve.ts',
      url: `http://127.0.0.1:${E2E_PORT}/readyz`,
      env: { ...serverEnv, PORT: String(E2E_PORT) },
      reuseExistingServer: false,
      timeout: 60_000,
    },
    {
      command: 'node scripts/serve.ts',
      url: `http://127.0.0.1:${E2E_MAINTENANCE_PORT}/readyz`,
      env: { ...serverEnv, PORT: String(E2E_MAINTENANCE_PORT), MAINTENANCE: 'true', SEED_DEMO: 'false' },
      reuseExistingServer: false,
      timeout: 60_000,
    },
  ],
});
