// The CAPTCHA widget's failures (spec §8) in a real browser, and that a form still works once the
// widget recovers. The server's side (required, single use, expiry) is tested in server/captcha.
import { expect, test } from '@playwright/test';
import { DEMO_USERS } from '../server/seed/demo.ts';
import { DEMO_PASSWORD, captchaReady, expectNoAxeViolations } from './support.ts';

test.use({ locale: 'en-GB' });

test('the challenge cannot be fetched: the widget says so, the form says so, and a retry recovers', async ({ page }) => {
  await page.route('**/api/captcha/challenge', (route) => route.fulfill({ status: 503, body: '{}' }));
  await page.goto('/forgot-password/email');
  const widget = page.getByTestId('captcha');
  await expect(widget.getByRole('alert')).toHaveText('The CAPTCHA is not available on the server side. Please try again later.');
  await expectNoAxeViolations(page);
  await page.getByLabel('Email address').fill('nobody@example.be');
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await expect(page).toHaveURL(/\/forgot-password\/email$/);
  await page.unroute('**/api/captcha/challenge');
  await widget.getByRole('button', { name: 'Try again' }).click();
  await captchaReady(page);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await expect(page).toHaveURL(/\/forgot-password-sent$/);
});

test('the solver script cannot load', async ({ page }) => {
  await page.route(/\/assets\/altcha-[^/]*\.js$/, (route) => route.abort());
  await page.goto('/forgot-username');
  await expect(page.getByTestId('captcha').getByRole('alert')).toHaveText('The CAPTCHA script failed to load. Check your connection and try again.');
});

test('the browser window has no WebCrypto', async ({ page }) => {
  await page.addInitScript(() => Object.defineProperty(globalThis.crypto, 'subtle', { value: undefined }));
  await page.goto('/forgot-username');
  await expect(page.getByTestId('captcha').getByRole('alert')).toHaveText('The CAPTCHA is not available in this browser window.');
});

test('a form sent before the CAPTCHA is ready says it is not loaded, and goes through once it is', async ({ page }) => {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => { release = resolve; });
  await page.route('**/api/captcha/challenge', async (route) => { await held; await route.continue(); });
  await page.goto('/forgot-username');
  await page.getByLabel('Card number (16 digits)').fill('5065 0000 0000 0002');
  await page.getByRole('button', { name: 'Find my username' }).click();
  await expect(page.getByRole('alert').first()).toHaveText('The CAPTCHA is not loaded yet. Please wait a moment.');
  release();
  await captchaReady(page);
  await page.getByRole('button', { name: 'Find my username' }).click();
  await expect(page).toHaveURL(/\/forgot-username-response$/);
});

// A password manager fills and submits at once; the server then wants a robot check (after earlier
// failures from this address). Its answer is staged once here, so other tests' accounts keep
// their counters; the rest is the real server.
for (const width of [1280, 375]) test(`a sign-in refused for want of a robot check keeps the password and goes again by itself once solved (${width} px)`, async ({ page }) => {
  await page.setViewportSize({ width, height: 800 });
  const sent: Array<Record<string, unknown>> = [];
  await page.route('**/api/token', async (route) => {
    sent.push(route.request().postDataJSON() as Record<string, unknown>);
    if (sent.length === 1) {
      await route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ code: 'captcha_required', message: 'Please confirm that you are not a robot.', captcha: true }) });
    } else {
      await route.continue();
    }
  });
  const claire = DEMO_USERS.find((u) => u.key === 'customer')!;
  await page.goto('/login/email');
  await page.getByLabel('Email address').fill(claire.email);
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Claire');
  expect(sent).toHaveLength(2);
  expect(sent[1]).toMatchObject({ username: claire.email, password: DEMO_PASSWORD });
  expect(typeof sent[1]!.captcha).toBe('string');
});

test('while the robot check is solved, the form says what happens and nothing contradicts it', async ({ page }) => {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => { release = resolve; });
  await page.route('**/api/captcha/challenge', async (route) => { await held; await route.continue(); });
  await page.route('**/api/token', (route) => route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ code: 'captcha_required', message: '', captcha: true }) }));
  await page.goto('/login/email');
  await page.getByLabel('Email address').fill('someone@example.be');
  await page.getByLabel('Password', { exact: true }).fill('typed-by-a-manager');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByText('One more check that you are not a robot, then we sign you in.')).toBeVisible();
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(page.getByLabel('Password', { exact: true })).toHaveValue('typed-by-a-manager');
  await expectNoAxeViolations(page);
  release();
  // Refused again after the automatic attempt: now it is said, once, and the password still stays.
  await expect(page.getByRole('alert')).toHaveText('Please confirm that you are not a robot.');
  await expect(page.getByLabel('Password', { exact: true })).toHaveValue('typed-by-a-manager');
});
