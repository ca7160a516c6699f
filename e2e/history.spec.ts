// Back and Forward inside the flows: each step is a history entry, Back returns to the step before
// it (never out of Tessera), Forward comes back to a step the flow still holds, and a step the flow
// cannot show any more is replaced by the one it can.
import { expect, test, type Page } from '@playwright/test';
import { DEMO_MFA_USERS } from '../server/seed/demo.ts';
import { captchaReady, signIn, signInWithCard } from './support.ts';

test.use({ locale: 'en-GB' });

const heading = (page: Page) => page.getByRole('heading', { level: 1 });
const kato = DEMO_MFA_USERS.find((u) => u.key === 'card')!;
const carl = DEMO_MFA_USERS.find((u) => u.key === 'offered')!;

test('forgotten password: Back to the request keeps what was typed, Forward returns to the code sent', async ({
  page,
}) => {
  await page.goto('/login/email');
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await expect(page).toHaveURL(/\/forgot-password\/email$/);
  // Nobody has this address: the answer and the screens are the same as for an account.
  await page.getByLabel('Email address').fill('nobody.back@example.be');
  await captchaReady(page);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await expect(page).toHaveURL(/\/forgot-password-sent$/);
  await page.getByLabel('Security code').fill('1234');

  await page.goBack();
  await expect(page).toHaveURL(/\/forgot-password\/email$/);
  await expect(page.getByLabel('Email address')).toHaveValue('nobody.back@example.be');
  await page.goForward();
  await expect(page).toHaveURL(/\/forgot-password-sent$/);
  await expect(page.getByText('If an account uses nobody.back@example.be, we sent it an 8-digit code.')).toBeVisible();
  await expect(page.getByText(/^The code expires in 1[45]:\d\d\.$/)).toBeVisible();

  // Back twice: the request, then the sign-in page it came from — still Tessera.
  await page.goBack();
  await page.goBack();
  await expect(page).toHaveURL(/\/login\/email$/);
  await expect(heading(page)).toHaveText('Sign in to your Tessera account');
});

test('second factor: Back to the methods and Forward to the code, then Back from the dashboard stays in Tessera', async ({
  page,
}) => {
  await signIn(page, kato.email);
  await expect(page).toHaveURL(/\/mfa\/methods$/);
  await page.getByRole('button', { name: 'Use my card' }).click();
  await expect(page).toHaveURL(/\/mfa$/);
  await expect(heading(page)).toHaveText('Confirm with your card');

  await page.goBack();
  await expect(page).toHaveURL(/\/mfa\/methods$/);
  await expect(heading(page)).toHaveText("Verify it's you");
  await page.goForward();
  await expect(page).toHaveURL(/\/mfa$/);
  await expect(heading(page)).toHaveText('Confirm with your card');

  await page.getByLabel('Card number').fill('5065 0000 0000 0001');
  await expect(heading(page)).toHaveText('Hello, Kato');
  // The sign-in's steps are over: Back lands on the dashboard again, not on a code screen or outside.
  await page.goBack();
  await expect(page).toHaveURL(/\/user\/dashboard$/);
  await expect(heading(page)).toHaveText('Hello, Kato');
});

test('enrolment: Back through selection to the intro, Forward back to the destination', async ({ page }) => {
  await signIn(page, carl.email);
  await expect(page).toHaveURL(/\/setup-mfa$/);
  await page.getByRole('button', { name: 'Set it up now' }).click();
  await expect(page).toHaveURL(/\/setup-mfa\/selection$/);
  await page.getByRole('button', { name: 'By text message (SMS)' }).click();
  await expect(page).toHaveURL(/\/setup-mfa\/phone$/);

  await page.goBack();
  await expect(page).toHaveURL(/\/setup-mfa\/selection$/);
  await expect(page.getByRole('button', { name: 'By email' })).toBeVisible();
  await page.goBack();
  await expect(page).toHaveURL(/\/setup-mfa$/);
  await expect(page.getByRole('button', { name: 'Set it up now' })).toBeVisible();
  await page.goForward();
  await page.goForward();
  await expect(page).toHaveURL(/\/setup-mfa\/phone$/);
  await expect(page.getByLabel('Phone number')).toBeVisible();
});

test('forgotten username: Back asks again, Forward shows the answer once more', async ({ page }) => {
  await page.goto('/forgot-username');
  await page.getByLabel('Card number (16 digits)').fill('5065 0000 0000 0002');
  await captchaReady(page);
  await page.getByRole('button', { name: 'Find my username' }).click();
  await expect(page).toHaveURL(/\/forgot-username-response$/);
  const answer = await heading(page).textContent();
  await page.goBack();
  await expect(page).toHaveURL(/\/forgot-username$/);
  await expect(page.getByLabel('Card number (16 digits)')).toBeVisible();
  await page.goForward();
  await expect(page).toHaveURL(/\/forgot-username-response$/);
  await expect(heading(page)).toHaveText(answer!);
});

test('forgotten password: a reload on the code resumes it; a reload on a step the tab cannot resume says why', async ({
  page,
}) => {
  await page.goto('/forgot-password/email');
  await page.getByLabel('Email address').fill('nobody.reload@example.be');
  await captchaReady(page);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await expect(page).toHaveURL(/\/forgot-password-sent$/);
  await page.reload();
  await expect(page).toHaveURL(/\/forgot-password-sent$/);
  await expect(
    page.getByText('If an account uses nobody.reload@example.be, we sent it an 8-digit code.'),
  ).toBeVisible();
  await expect(page.getByText(/^The code expires in 1[45]:\d\d\.$/)).toBeVisible();
  await expect(page.getByLabel('Security code')).toBeVisible();

  // Another tab has no memory of this flow: its new-password step goes back to the request.
  const other = await page.context().newPage();
  await other.goto('/reset-password');
  await expect(other).toHaveURL(/\/forgot-password\/email$/);
  await expect(other.getByRole('alert')).toHaveText('This code has expired. Ask for a new one.');
});

test('second factor: a reload on the methods or on the code resumes the sign-in', async ({ page }) => {
  await signIn(page, kato.email);
  await expect(page).toHaveURL(/\/mfa\/methods$/);
  await page.reload();
  await expect(page).toHaveURL(/\/mfa\/methods$/);
  await expect(heading(page)).toHaveText("Verify it's you");
  await page.getByRole('button', { name: 'Use my card' }).click();
  await expect(heading(page)).toHaveText('Confirm with your card');
  await page.reload();
  await expect(page).toHaveURL(/\/mfa$/);
  await expect(heading(page)).toHaveText('Confirm with your card');
  await page.getByLabel('Card number').fill('5065 0000 0000 0001');
  await expect(heading(page)).toHaveText('Hello, Kato');
  // Signed in, the second factor is over: its screens go home, and so does the set-up's intro for
  // an account that has one; its own steps add a further method instead.
  await page.goto('/mfa');
  await expect(page).toHaveURL(/\/user\/dashboard$/);
  await page.goto('/setup-mfa');
  await expect(page).toHaveURL(/\/user\/dashboard$/);
  await expect(heading(page)).toHaveText('Hello, Kato');
  await page.goto('/setup-mfa/phone');
  await expect(heading(page)).toHaveText('Your mobile phone number');
  // The recovery-key screen opened outside a sign-in by recovery key signs out (spec §4).
  await page.goto('/mfa/totp-recovery');
  await expect(page).toHaveURL(/\/login\/email$/);
});

test('onboarding: Back to the start and Forward to the card step; a reload before any step was taken starts again', async ({
  page,
}) => {
  await page.goto('/onboarding');
  await page.getByRole('button', { name: /I received my card/ }).click();
  await expect(page).toHaveURL(/\/onboarding\/card$/);
  await expect(page.getByLabel('Card number (16 digits)')).toBeVisible();
  await page.goBack();
  await expect(page).toHaveURL(/\/onboarding$/);
  await expect(heading(page)).toHaveText('Create your Tessera account');
  await page.goForward();
  await expect(page).toHaveURL(/\/onboarding\/card$/);
  await expect(page.getByLabel('Card number (16 digits)')).toBeVisible();
  // Nothing was sent to the server yet: a reload is a first visit, which starts at the start.
  await page.reload();
  await expect(page).toHaveURL(/\/onboarding$/);
  await expect(heading(page)).toHaveText('Create your Tessera account');
});

test('authenticator set-up: a reload shows a new key, Back returns to Security, Forward opens the set-up again', async ({
  page,
}) => {
  await signInWithCard(page, kato.email, 'Kato');
  await page.getByRole('link', { name: 'Security' }).click();
  await expect(heading(page)).toHaveText('Security settings');
  await page.getByRole('link', { name: 'Add an authenticator app' }).click();
  await expect(page).toHaveURL(/\/setup-mfa\/totp$/);
  await expect(page.getByRole('img', { name: /QR code/ })).toBeVisible();
  const first = await page.getByTestId('totp-secret').textContent();

  // The key nobody confirmed is not kept: a reload starts the set-up with a new one.
  await page.reload();
  await expect(page).toHaveURL(/\/setup-mfa\/totp$/);
  await expect(page.getByRole('img', { name: /QR code/ })).toBeVisible();
  expect(await page.getByTestId('totp-secret').textContent()).not.toBe(first);

  await page.goBack();
  await expect(page).toHaveURL(/\/security$/);
  await expect(heading(page)).toHaveText('Security settings');
  await page.goForward();
  await expect(page).toHaveURL(/\/setup-mfa\/totp$/);
  await expect(page.getByRole('img', { name: /QR code/ })).toBeVisible();
});
