// Screenshots of the screens docs/screenshots shows, from a running server with the demo data:
//   node scripts/screenshots.ts http://account.localhost:3000 docs/screenshots after
// writes docs/screenshots/<screen>-after.png, at a phone's width (375 px) unless named otherwise.
// Run it against two builds (e.g. the commit before a change and after it) for a before/after pair.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Page } from '@playwright/test';
import { wantRobotCheckOnce } from '../e2e/support.ts';
import { DEMO_MFA_USERS, DEMO_PASSWORD, DEMO_USERS } from '../server/seed/demo.ts';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from './chromium.ts';

const [base = 'http://account.localhost:3000', dir = 'docs/screenshots', label = 'after'] = process.argv.slice(2);
mkdirSync(dir, { recursive: true });

const person = (key: string) => [...DEMO_USERS, ...DEMO_MFA_USERS].find((u) => u.key === key)!;

async function signIn(page: Page, email: string) {
  await page.goto(`${base}/login/email`);
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const shots: Record<string, (page: Page) => Promise<void>> = {
  // A person without a second factor opens the methods screen, which is sensitive.
  'two-step-from-security': async (page) => {
    await signIn(page, person('cardholder').email);
    await page.getByRole('heading', { name: 'Hello, Emma' }).waitFor();
    await page.goto(`${base}/security/mfa-edit`);
    await page.waitForTimeout(1500);
  },
  // A sign-in refused for want of a robot check (staged once, as a password manager meets it).
  'captcha-refusal': async (page) => {
    await page.route('**/api/captcha/challenge', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 4000));
      await route.continue();
    });
    await wantRobotCheckOnce(page, '**/api/token');
    await signIn(page, person('customer').email);
    await page.waitForTimeout(1500);
  },
  // The rules of a new password, with "abc" typed.
  'password-rules': async (page) => {
    await signIn(page, person('weak').email);
    await page.getByLabel('New password', { exact: true }).fill('abc');
    await page.waitForTimeout(500);
  },
  // Deleting a method (Kato, after his card as the second factor).
  'delete-method': async (page) => {
    await signIn(page, person('card').email);
    await page.getByRole('button', { name: 'Use my card' }).click();
    await page.getByLabel('Card number').fill('5065 0000 0000 0001');
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('heading', { name: 'Hello, Kato' }).waitFor();
    await page.goto(`${base}/security/mfa-edit`);
    await page.getByRole('button', { name: /Delete: Email/ }).click();
    await page.waitForTimeout(1000);
  },
  // A forced user's enrolment intro.
  'enrolment-intro': async (page) => {
    await signIn(page, person('forced').email);
    await page.waitForTimeout(1500);
  },
};

const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS });
for (const [name, take] of Object.entries(shots)) {
  const context = await browser.newContext({ locale: 'en-GB', viewport: { width: 375, height: 740 } });
  const page = await context.newPage();
  try {
    await take(page);
    await page.screenshot({ path: join(dir, `${name}-${label}.png`), fullPage: true });
    console.log(`${name}-${label}.png`);
  } catch (error) {
    console.error(`${name}: ${(error as Error).message.split('\n')[0]}`);
  } finally {
    await context.close();
  }
}
await browser.close();
