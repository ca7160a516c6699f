import { expect, test } from '@playwright/test';
import { captchaReady, codeSentTo, expectNoAxeViolations, sentCount, signIn, user } from './support.ts';

test.use({ locale: 'en-GB' });
test.describe.configure({ mode: 'serial' });

const rita = user('reset');

test('forgot password by email: the code, a new password, and signing in with it', async ({ page }) => {
  // Five accessibility scans, a CAPTCHA and two password hashes: more than the default on a busy machine.
  test.slow();
  // The address typed at sign-in carries to the forgotten password, and what is typed there carries back.
  await page.goto('/login/email');
  await page.getByLabel('Email address').fill('rita.typo@example.be');
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await expect(page).toHaveURL(/\/forgot-password\/email$/);
  await expect(page.getByLabel('Email address')).toHaveValue('rita.typo@example.be');
  await page.getByLabel('Email address').fill(rita.email);
  await page.goBack();
  await expect(page).toHaveURL(/\/login\/email$/);
  await expect(page.getByLabel('Email address')).toHaveValue(rita.email);
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await expect(page.getByLabel('Email address')).toHaveValue(rita.email);
  await expectNoAxeViolations(page);
  const before = await sentCount(rita.email);
  await captchaReady(page);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await expect(page).toHaveURL(/\/forgot-password-sent$/);
  // The address as typed a moment ago, not masked.
  await expect(page.getByText(`If an account uses ${rita.email}, we sent it an 8-digit code.`)).toBeVisible();
  // The code's two timers, from the server's answer.
  await expect(page.getByText(/^The code expires in 1[45]:\d\d\.$/)).toBeVisible();
  await expect(page.getByRole('button', { name: /^Send a new code in 0:[0-3]\d$/ })).toBeDisabled();
  // The robot check is for a new code: not shown while the person types this one.
  await expect(page.getByTestId('captcha')).toBeHidden();
  await expectNoAxeViolations(page);
  await page.getByLabel('Security code').fill(await codeSentTo(rita.email, before));
  await expect(page).toHaveURL(/\/reset-password$/);
  // The new password is typed at once, and a password manager saves it under the account's address.
  await expect(page.getByLabel('New password', { exact: true })).toBeFocused();
  const username = page.locator('input[autocomplete="username"]');
  await expect(username).toHaveValue(rita.email);
  await expect(username).toBeHidden();
  await expectNoAxeViolations(page);
  await page.getByLabel('New password', { exact: true }).fill('Rita-new-pass-01');
  await page.getByLabel('Confirm the new password').fill('Rita-new-pass-01');
  await page.getByRole('button', { name: 'Save my new password' }).click();
  await expect(page).toHaveURL(/\/reset-password-confirmed$/);
  await expectNoAxeViolations(page);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  // The sign-in starts with the address the reset was for; signing in stays the person's act.
  await expect(page).toHaveURL(/\/login\/email$/);
  await expect(page.getByLabel('Email address')).toHaveValue(rita.email);
  await expect(page.getByLabel('Password', { exact: true })).toHaveValue('');
  await signIn(page, rita.email, 'Rita-new-pass-01');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Rita');
});

test('forgot password from the phone sign-in: its phone form, the number carried over', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 740 });
  await page.goto('/login/phone');
  await page.getByLabel('Phone number').fill('0470 00 00 01');
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await expect(page).toHaveURL(/\/forgot-password\/phone$/);
  await expect(page.getByLabel('Phone number')).toHaveValue('0470 00 00 01');
  await expectNoAxeViolations(page);
  // And back: the number typed there is the sign-in's.
  await page.getByLabel('Phone number').fill('0470 00 00 02');
  await page.goBack();
  await expect(page).toHaveURL(/\/login\/phone$/);
  await expect(page.getByLabel('Phone number')).toHaveValue('0470 00 00 02');
});

test('forgot password by WhatsApp, and the same answer for an unknown number', async ({ page }) => {
  await page.goto('/forgot-password/phone');
  await captchaReady(page);
  await expectNoAxeViolations(page);
  await page.getByLabel('Phone number').fill('0470 00 00 01');
  await page.getByLabel('WhatsApp').check();
  await captchaReady(page);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await expect(
    page.getByText('If an account uses 0470 00 00 01, we sent it an 8-digit code on WhatsApp.'),
  ).toBeVisible();

  await page.goto('/forgot-password/phone');
  const before = await sentCount(rita.phone);
  await page.getByLabel('Phone number').fill('0470 11 11 11');
  await page.getByLabel('WhatsApp').check();
  await captchaReady(page);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await expect(
    page.getByText('If an account uses 0470 11 11 11, we sent it an 8-digit code on WhatsApp.'),
  ).toBeVisible();
  await page.getByLabel('Security code').fill(await codeSentTo(rita.phone, before));
  await page.getByLabel('New password', { exact: true }).fill('Rita-new-pass-02');
  await page.getByLabel('Confirm the new password').fill('Rita-new-pass-02');
  await page.getByRole('button', { name: 'Save my new password' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Your password was changed');
});

test('forgot username by card number and by national register number', async ({ page }) => {
  await page.goto('/login/email');
  await page.getByRole('link', { name: 'Forgot your username?' }).click();
  await expect(page).toHaveURL(/\/forgot-username$/);
  await expectNoAxeViolations(page);
  // Nothing typed asks for the number; a number that is not one says so.
  await captchaReady(page);
  await page.getByRole('button', { name: 'Find my username' }).click();
  await expect(page.getByRole('alert')).toHaveText('Enter your card number.');
  await page.getByLabel('Card number (16 digits)').fill('4065 0000 0000 0002');
  await captchaReady(page);
  await page.getByRole('button', { name: 'Find my username' }).click();
  await expect(page.getByRole('alert')).toHaveText('Your card number is invalid.');
  await page.getByLabel('Card number (16 digits)').fill('5065 0000 0000 0002');
  await captchaReady(page);
  await page.getByRole('button', { name: 'Find my username' }).click();
  await expect(page).toHaveURL(/\/forgot-username-response$/);
  await expect(page.getByTestId('usernames')).toContainText('e***s@example.be');
  await expectNoAxeViolations(page);
  await page.getByRole('button', { name: 'Try another number' }).click();
  await page.getByLabel('My national register number').check();
  await page.getByLabel('National register number (11 digits)').fill('85.07.30-033.28');
  await captchaReady(page);
  await page.getByRole('button', { name: 'Find my username' }).click();
  await expect(page.getByTestId('usernames')).toContainText('+32 ••• •• •• 56');
  await page.getByRole('button', { name: 'Try another number' }).click();
  await page.getByLabel('My national register number').check();
  await page.getByLabel('National register number (11 digits)').fill('90010100123');
  await captchaReady(page);
  await page.getByRole('button', { name: 'Find my username' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('No account was found with this number.');
  await expectNoAxeViolations(page);
  // The likely reason, and the way on.
  await page.getByRole('link', { name: 'Activate my card' }).click();
  await expect(page).toHaveURL(/\/onboarding(\/card)?$/);
});
