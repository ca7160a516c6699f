// The CAPTCHA widget's failures (spec §8) in a real browser, and that a form still works once the
// widget recovers. The server's side (required, single use, expiry) is tested in server/captcha.
import { expect, test } from '@playwright/test';
import { captchaReady, expectNoAxeViolations } from './support.ts';

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
