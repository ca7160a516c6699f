import { expect, test } from '@playwright/test';
import { TOTP } from 'otpauth';
import { DEMO_MFA_USERS } from '../server/seed/demo.ts';
import { codeSentTo, expectNoAxeViolations, sentCount, signIn } from './support.ts';

test.use({ locale: 'en-GB' });

const sara = DEMO_MFA_USERS.find((u) => u.key === 'secure')!;

test('a sensitive screen asks for a second factor first, then returns to it', async ({ page }) => {
  // First sign-in with a code, trusting the device; the second one is by password alone.
  let before = await sentCount(sara.email);
  await signIn(page, sara.email);
  await page.getByRole('button', { name: /Email a code/ }).click();
  await page.getByLabel('Trust this device: do not ask again on it').check();
  await page.getByLabel('Security code').fill(await codeSentTo(sara.email, before));
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Sara');
  await page.getByRole('link', { name: 'Log out' }).click();
  await expect(page).toHaveURL(/\/login\/email$/);
  await signIn(page, sara.email);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Sara');

  await page.getByRole('link', { name: 'Security' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Security settings');
  await expect(page.getByTestId('mfa-methods')).toContainText('Email to s***@example.be — primary');
  await expectNoAxeViolations(page);
  await page.getByRole('link', { name: 'Manage verification methods' }).click();
  // The step-up keeps the spec's query: one method at a time, and where to return.
  await expect(page).toHaveURL(/\/mfa\/methods\?single=true&redirect=%2Fsecurity%2Fmfa-edit$/);
  before = await sentCount(sara.email);
  await page.getByRole('button', { name: /Email a code/ }).click();
  await page.getByLabel('Security code').fill(await codeSentTo(sara.email, before));
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page).toHaveURL(/\/security\/mfa-edit$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Verification methods');
  await expectNoAxeViolations(page);

  await page.getByRole('button', { name: /Make primary: Phone/ }).click();
  await expect(page.getByRole('status')).toHaveText('Your primary method was changed.');
  await page.getByRole('button', { name: /Delete: Phone/ }).click();
  await expect(page.getByRole('status')).toHaveText('The method was deleted.');
  await page.getByRole('button', { name: /Delete: Email/ }).click();
  await expect(page.getByRole('alert')).toHaveText('You cannot delete your last email or phone verification method.');

  // Adding an authenticator app: QR code or key, a 6-digit code, then the recovery keys once.
  await page.getByRole('link', { name: 'Security settings' }).click();
  await page.getByRole('link', { name: 'Add an authenticator app' }).click();
  await expect(page.getByRole('img', { name: /QR code/ })).toBeVisible();
  await expectNoAxeViolations(page);
  const secret = (await page.getByTestId('totp-secret').textContent())!;
  await page.getByLabel('6-digit code').fill(new TOTP({ secret, digits: 6, period: 30 }).generate());
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page).toHaveURL(/\/setup-totp\/success$/);
  await expect(page.getByTestId('recovery-keys').getByRole('listitem')).toHaveCount(10);
  await page.getByRole('button', { name: 'I have saved them' }).click();
  await expect(page.getByTestId('mfa-methods')).toContainText('Authenticator app');
});

test('a security screen reached by reload or a typed address opens, and asks for a second factor only where it must', async ({ page }) => {
  const before = await sentCount(sara.email);
  await signIn(page, sara.email);
  await page.getByRole('button', { name: /Email a code/ }).click();
  await page.getByLabel('Security code').fill(await codeSentTo(sara.email, before));
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Sara');
  await page.goto('/security');
  await expect(page.getByTestId('mfa-methods')).toContainText('Email to s***@example.be');
  await page.reload();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Security settings');
  await expect(page.getByTestId('mfa-methods')).toContainText('Email to s***@example.be');
  // The sensitive screen, opened cold within the step-up window, opens too.
  await page.goto('/security/mfa-edit');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Verification methods');
});
