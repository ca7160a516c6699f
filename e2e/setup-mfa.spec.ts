import { expect, test } from '@playwright/test';
import { DEMO_MFA_USERS } from '../server/seed/demo.ts';
import { codeSentTo, expectNoAxeViolations, sentCount, signIn } from './support.ts';

test.use({ locale: 'en-GB' });
test.describe.configure({ mode: 'serial' });

const fiona = DEMO_MFA_USERS.find((u) => u.key === 'forced')!;
const carl = DEMO_MFA_USERS.find((u) => u.key === 'offered')!;
const lea = DEMO_MFA_USERS.find((u) => u.key === 'later')!;
/** What the set-up's selection offers, in its order. */
const CHOICES = [
  'By text message (SMS)',
  'By phone call',
  'By WhatsApp',
  'By email',
  'With an authenticator app',
  'With a passkey',
];

test('a forced user who leaves the set-up is signed out', async ({ page }) => {
  await signIn(page, fiona.email);
  await expect(page).toHaveURL(/\/setup-mfa$/);
  await expect(page.getByRole('button', { name: 'Not now' })).toHaveCount(0);
  // A reload or deep link comes back to the set-up (the diversion) …
  await page.goto('/user/dashboard');
  await expect(page).toHaveURL(/\/setup-mfa$/);
  // … and leaving it from within the app signs out.
  await page.getByRole('link', { name: 'Tessera', exact: true }).click();
  await expect(page).toHaveURL(/\/login\/email$/);
  expect((await page.context().cookies()).find((c) => c.name === 'tessera_token')).toBeUndefined();
});

test('a forced user chooses how, sets up a phone second factor from the number the account has, and needs it at the next sign-in (375 px)', async ({
  page,
}) => {
  await page.setViewportSize({ width: 375, height: 740 });
  await signIn(page, fiona.email);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Protect your account with two-step verification');
  // The intro promises a phone, an email, an app or a passkey, and the choice is what comes (no "not now").
  await expect(
    page.getByText('You choose how: a phone, an email address, an authenticator app or a passkey.'),
  ).toBeVisible();
  await expectNoAxeViolations(page);
  await page.getByRole('button', { name: 'Set it up now' }).click();
  await expect(page).toHaveURL(/\/setup-mfa\/selection$/);
  await expect(page.getByRole('main').getByRole('button')).toHaveText([...CHOICES, 'Back']);
  await page.getByRole('button', { name: 'By text message (SMS)' }).click();
  await expect(page).toHaveURL(/\/setup-mfa\/phone$/);
  // The account's number is there already, as people read it.
  await expect(page.getByLabel('Phone number')).toHaveValue('+32 470 44 44 44');
  await expect(page.getByLabel('Phone number')).toBeFocused();
  await expectNoAxeViolations(page);
  const before = await sentCount(fiona.phone);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await expect(page).toHaveURL(/\/setup-mfa\/confirmation$/);
  await expect(page.getByText(/^The code expires in 1[45]:\d\d\.$/)).toBeVisible();
  await expect(page.getByRole('button', { name: /^Send a new code in 0:[0-3]\d$/ })).toBeDisabled();
  await page.getByLabel('Security code').fill(await codeSentTo(fiona.phone, before));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Two-step verification is on');
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Fiona');
  await page.getByRole('link', { name: 'Log out' }).click();
  await expect(page).toHaveURL(/\/login\/email$/);
  await signIn(page, fiona.email);
  await expect(page).toHaveURL(/\/mfa\/methods$/);
});

test('a customer is warned about shared credentials and may skip; "not now" holds at the next sign-in (375 px)', async ({
  page,
}) => {
  await page.setViewportSize({ width: 375, height: 740 });
  await signIn(page, lea.email);
  await expect(page).toHaveURL(/\/setup-mfa$/);
  await expect(page.getByText('only the person who set it up can sign in')).toBeVisible();
  await page.getByRole('button', { name: 'Not now' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Lea');
  await page.getByRole('link', { name: 'Log out' }).click();
  await signIn(page, lea.email);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Lea');
});

test('a customer who sets up chooses a phone (by SMS, call or WhatsApp), an email or the authenticator app, or not now', async ({
  page,
}) => {
  await signIn(page, carl.email);
  await page.getByRole('button', { name: 'Set it up now' }).click();
  await expect(page).toHaveURL(/\/setup-mfa\/selection$/);
  await expect(page.getByRole('main').getByRole('button')).toHaveText([...CHOICES, 'Not now', 'Back']);
  await expectNoAxeViolations(page);
  // Back returns to the intro, which says the customer chooses.
  await page.getByRole('button', { name: 'Back' }).click();
  await expect(page).toHaveURL(/\/setup-mfa$/);
  await expect(
    page.getByText('You choose how: a phone, an email address, an authenticator app or a passkey.'),
  ).toBeVisible();
  await page.getByRole('button', { name: 'Set it up now' }).click();
  await page.getByRole('button', { name: 'By email' }).click();
  await expect(page).toHaveURL(/\/setup-mfa\/email$/);
  // An address of another account is sent its code like any other; only once that code came back
  // does the answer say it is in use (at sign-in, without the step-up a merge asks, no offer: from
  // Security it leads to the merge, e2e/fuzzion.spec.ts).
  const emma = 'emma.peeters@example.be';
  const before = await sentCount(emma);
  await page.getByLabel('Email address').fill(emma);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await expect(page).toHaveURL(/\/setup-mfa\/confirmation$/);
  await expect(page.getByText('already in use', { exact: false })).toHaveCount(0);
  await page.getByLabel('Security code').fill(await codeSentTo(emma, before));
  await expect(page).toHaveURL(/\/setup-mfa\/email$/);
  await expect(page.getByRole('alert')).toHaveText('This email is already in use. Please use another one.');
});
