// Onboarding in a real browser (spec §2, §4): by card and by invitation, with the email code read
// from the real SMTP server and the phone code from the local SMS provider; the activation-failed
// outcome; guarded steps; axe on every screen.
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { captchaReady, codeSentTo, expectNoAxeViolations, sentCount, signIn, toDashboard } from './support.ts';

test.use({ locale: 'en-GB' });

const PASSWORD = 'Onboarding-pass-2026';
const heading = (page: Page) => page.getByRole('heading', { level: 1 });

async function startWithCard(page: Page, number: string, code: string) {
  await page.goto('/onboarding');
  await page.getByRole('button', { name: /I received my card/ }).click();
  await expect(page).toHaveURL(/\/onboarding\/card$/);
  await page.getByLabel('Card number (16 digits)').fill(number);
  await page.getByLabel('Activation code').fill(code);
  await captchaReady(page);
  await page.getByRole('button', { name: 'Continue' }).click();
}

/** Terms, details (in English), up to the email step. */
async function throughDetails(page: Page) {
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByLabel('I accept the terms of use').check();
  await page.getByLabel('I accept the privacy policy').check();
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page).toHaveURL(/\/onboarding\/create$/);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page).toHaveURL(/\/onboarding\/email-verification$/);
}

async function enterCode(page: Page, recipient: string, since: number, label = 'Security code') {
  await expect(page).toHaveURL(/\/onboarding\/onboarding-mfa$/);
  await page.getByLabel(label).fill(await codeSentTo(recipient, since));
}

async function confirmEmail(page: Page, email: string) {
  const before = await sentCount(email);
  await page.getByLabel('Email address').fill(email);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await enterCode(page, email, before);
  await expect(page).toHaveURL(/\/onboarding\/phone-verification$/);
}

async function confirmPhone(page: Page, typed: string, e164: string) {
  const before = await sentCount(e164);
  await page.getByLabel('Phone number').fill(typed);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await enterCode(page, e164, before);
  await expect(page).toHaveURL(/\/onboarding\/password$/);
}

async function choosePassword(page: Page) {
  await page.getByLabel('New password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Confirm the new password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create my account' }).click();
}

test('a new card holder activates a card: every step, codes by email and SMS, then signs in', async ({ page }) => {
  // The whole journey, with an accessibility scan on each of its screens.
  test.slow();
  // This browser cannot make a passkey quietly: the account offers one as the journey ends.
  await page.addInitScript(() => {
    const capabilities = PublicKeyCredential.getClientCapabilities.bind(PublicKeyCredential);
    PublicKeyCredential.getClientCapabilities = async () => ({ ...(await capabilities()), conditionalCreate: false });
  });
  await page.goto('/login/email');
  await page.getByRole('link', { name: 'Activate my card' }).click();
  await expect(page).toHaveURL(/\/onboarding$/);
  await expect(heading(page)).toHaveText('Create your Tessera account');
  await expectNoAxeViolations(page);
  await page.getByRole('button', { name: /I received my card/ }).click();
  await expect(page.getByText('Step 1 of 7')).toBeVisible();
  await captchaReady(page);
  await expectNoAxeViolations(page);
  // The browser guides; the server checks the activation code.
  await page.getByLabel('Card number (16 digits)').fill('4065 0000 0000 1001');
  await page.getByLabel('Activation code').fill('100101');
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('alert').last()).toHaveText('Your card number is invalid.');
  await page.getByLabel('Card number (16 digits)').fill('5065 0000 0000 1001');
  await page.getByLabel('Activation code').fill('999999');
  await captchaReady(page);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('alert').last()).toHaveText('Your activation code is invalid.');
  await page.getByLabel('Activation code').fill('100101');
  await captchaReady(page);
  await page.getByRole('button', { name: 'Continue' }).click();

  await expect(page).toHaveURL(/\/onboarding\/welcome$/);
  await expect(heading(page)).toHaveText('Welcome, Nora!');
  await expect(page.getByText('Your card from Brasserie De Smet is ready to be activated.')).toBeVisible();
  await expectNoAxeViolations(page);
  await page.getByRole('button', { name: 'Continue' }).click();

  await expect(page).toHaveURL(/\/onboarding\/terms-conditions$/);
  await expectNoAxeViolations(page);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('alert')).toHaveText('Please accept the terms and the privacy policy to use your card.');
  await page.getByLabel('I accept the terms of use').check();
  await page.getByLabel('I accept the privacy policy').check();
  await page.getByLabel('News and offers by email').check();
  await page.getByRole('button', { name: 'Continue' }).click();

  await expect(page).toHaveURL(/\/onboarding\/create$/);
  await expect(page.getByLabel('First name')).toHaveValue('Nora');
  await expect(page.getByLabel('Last name')).toHaveValue('Nys');
  await expectNoAxeViolations(page);
  // A field left empty is named on the field itself, and nothing is sent.
  await page.getByLabel('Last name').fill('');
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('alert')).toHaveText('Enter your last name.');
  await expect(page.getByLabel('Last name')).toHaveAttribute('aria-invalid', 'true');
  await expect(page).toHaveURL(/\/onboarding\/create$/);
  await expectNoAxeViolations(page);
  await page.getByLabel('Last name').fill('Nys');
  await expect(page.getByRole('alert')).toHaveCount(0);
  await page.getByRole('button', { name: 'Continue' }).click();

  await expect(page).toHaveURL(/\/onboarding\/email-verification$/);
  await expect(page.getByLabel('Email address')).toHaveValue('nora.nys@example.be');
  await expectNoAxeViolations(page);
  const mails = await sentCount('nora.nys@example.be');
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await expect(page).toHaveURL(/\/onboarding\/onboarding-mfa$/);
  await expect(heading(page)).toHaveText('Check your email');
  await expect(page.getByText('We sent an 8-digit code to n***@example.be.')).toBeVisible();
  await expectNoAxeViolations(page);
  await enterCode(page, 'nora.nys@example.be', mails);

  await expect(page).toHaveURL(/\/onboarding\/phone-verification$/);
  await expect(page.getByLabel('Phone number')).toHaveValue('+32470101001');
  await expectNoAxeViolations(page);
  const texts = await sentCount('+32470101001');
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await expect(heading(page)).toHaveText('Check your text messages');
  await enterCode(page, '+32470101001', texts);

  await expect(page).toHaveURL(/\/onboarding\/password$/);
  await expect(page.getByText('Step 7 of 7')).toBeVisible();
  await expectNoAxeViolations(page);
  await choosePassword(page);

  await expect(page).toHaveURL(/\/onboarding\/confirmation$/);
  await expect(heading(page)).toHaveText('Your account is ready and your card is activated');
  await expect(
    page.getByText('From now on, you sign in with nora.nys@example.be and your new password.'),
  ).toBeVisible();
  await expectNoAxeViolations(page);
  // Signed in already, as a password sign-in would have: the header no longer offers to sign in.
  await expect(page.getByRole('banner').getByRole('link', { name: 'Log in' })).toHaveCount(0);
  await expect(page.getByRole('banner').getByRole('link', { name: 'Register' })).toHaveCount(0);
  // On to the account.
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(heading(page)).toHaveText('Hello, Nora');
  await expect(page.getByRole('region', { name: 'Sign in faster with a passkey' })).toBeVisible();
  // The password works for the next sign-in.
  await page.context().clearCookies();
  await signIn(page, 'nora.nys@example.be', PASSWORD);
  await expect(heading(page)).toHaveText('Hello, Nora');
});

test('an invitation: the invited address is kept without a code, the phone gets its code on WhatsApp', async ({
  page,
}) => {
  await page.goto('/onboarding');
  await page.getByRole('button', { name: /I received an email/ }).click();
  await expect(page).toHaveURL(/\/onboarding\/code$/);
  await expectNoAxeViolations(page);
  await page.getByLabel('Invitation code').fill('tess join 0002');
  await captchaReady(page);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(heading(page)).toHaveText('Welcome, Hugo!');
  await expect(page.getByText('Thys Logistics invites you to Tessera.')).toBeVisible();
  await throughDetails(page);
  await expect(page.getByText('Your invitation came to this address, so it is confirmed already.')).toBeVisible();
  await expectNoAxeViolations(page);
  const mails = await sentCount('hugo.hendrickx@example.be');
  await page.getByRole('button', { name: 'Continue with this email address' }).click();
  await expect(page).toHaveURL(/\/onboarding\/phone-verification$/);
  expect(await sentCount('hugo.hendrickx@example.be')).toBe(mails);
  await page.getByLabel('WhatsApp').check();
  const before = await sentCount('+32470102002');
  await page.getByLabel('Phone number').fill('0470 10 20 02');
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await expect(heading(page)).toHaveText('Check WhatsApp');
  await enterCode(page, '+32470102002', before);
  await choosePassword(page);
  await expect(heading(page)).toHaveText('Your account is ready');
  await expect(page.getByText('Your invitation is accepted.')).toBeVisible();
});

test('an email and a phone another account has: each gets its code, only the right code says "already used", and another one goes on', async ({
  page,
}) => {
  // On a phone's width: the message must read there too.
  await page.setViewportSize({ width: 375, height: 812 });
  // The card with no holder details: the person types everything.
  await startWithCard(page, '5065 0000 0000 1005', '100505');
  await expect(heading(page)).toHaveText('Welcome!');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByLabel('I accept the terms of use').check();
  await page.getByLabel('I accept the privacy policy').check();
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByLabel('First name').fill('Wim');
  await page.getByLabel('Last name').fill('Wauters');
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page).toHaveURL(/\/onboarding\/email-verification$/);

  // Wout's address: the code goes out as to any other, and nothing is said yet.
  const takenEmail = 'wout.weak@example.be';
  const mails = await sentCount(takenEmail);
  await page.getByLabel('Email address').fill(takenEmail);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await expect(heading(page)).toHaveText('Check your email');
  await expect(page.getByRole('alert')).toHaveCount(0);
  await enterCode(page, takenEmail, mails);
  // Its right code: back on the email step, saying so, to type another address.
  await expect(page).toHaveURL(/\/onboarding\/email-verification$/);
  await expect(page.getByRole('alert')).toHaveText('This email is invalid or already used');
  await expect(page.getByLabel('Email address')).toHaveValue(takenEmail);
  await expect(page.getByRole('button', { name: 'Send me a code' })).toBeVisible();
  await expectNoAxeViolations(page);
  await page.screenshot({ path: 'test-results/onboarding-email-already-used-375.png', fullPage: true });
  await confirmEmail(page, 'wim.wauters@example.be');

  const texts = await sentCount('+32470555555');
  await page.getByLabel('Phone number').fill('0470 55 55 55');
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await expect(heading(page)).toHaveText('Check your text messages');
  await enterCode(page, '+32470555555', texts);
  await expect(page).toHaveURL(/\/onboarding\/phone-verification$/);
  await expect(page.getByRole('alert')).toHaveText('This phone number is invalid or already used');
  await confirmPhone(page, '0470 10 50 05', '+32470105005');
  await choosePassword(page);
  await expect(heading(page)).toHaveText('Your account is ready and your card is activated');
  await expect(
    page.getByText('From now on, you sign in with wim.wauters@example.be and your new password.'),
  ).toBeVisible();
});

test('the account is created but the card is not activated when another account took it meanwhile', async ({
  page,
  browser,
}) => {
  // Two people with the same card: the first one at the end takes it.
  await startWithCard(page, '5065 0000 0000 1002', '100202');
  await expect(heading(page)).toHaveText('Welcome, Bart!');
  await throughDetails(page);
  await confirmEmail(page, 'bart.second@example.be');
  await confirmPhone(page, '0470 10 20 22', '+32470102022');

  const other = await browser.newPage({ locale: 'en-GB' });
  await startWithCard(other, '5065 0000 0000 1002', '100202');
  await throughDetails(other);
  await confirmEmail(other, 'bart.bosmans@example.be');
  await confirmPhone(other, '0470 10 10 02', '+32470101002');
  await choosePassword(other);
  await expect(heading(other)).toHaveText('Your account is ready and your card is activated');
  await other.close();

  await choosePassword(page);
  await expect(heading(page)).toHaveText('Your account is ready, but your card could not be activated');
  await expect(page.getByText('You can activate your card later in the app.')).toBeVisible();
  await expectNoAxeViolations(page);
});

test('a reload on the terms, on the email code and on the password resumes that step from the server', async ({
  page,
}) => {
  await startWithCard(page, '5065 0000 0000 1003', '100303');
  await expect(heading(page)).toHaveText('Welcome, Julie!');
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page).toHaveURL(/\/onboarding\/terms-conditions$/);
  await page.reload();
  await expect(page).toHaveURL(/\/onboarding\/terms-conditions$/);
  await expect(heading(page)).toHaveText('Terms and privacy');
  await expect(page.getByText('Step 3 of 7')).toBeVisible();
  // What came before is there too: Back shows the welcome the start answered.
  await page.getByRole('button', { name: 'Back' }).click();
  await expect(heading(page)).toHaveText('Welcome, Julie!');
  await throughDetails(page);

  const email = 'julie.lambert@example.be';
  const before = await sentCount(email);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await expect(page).toHaveURL(/\/onboarding\/onboarding-mfa$/);
  await expect(heading(page)).toHaveText('Check your email');
  await page.reload();
  await expect(page).toHaveURL(/\/onboarding\/onboarding-mfa$/);
  await expect(heading(page)).toHaveText('Check your email');
  await expect(page.getByText('We sent an 8-digit code to j***@example.be.')).toBeVisible();
  await expect(page.getByText(/^The code expires in 1[45]:\d\d\.$/)).toBeVisible();
  // The reload sent no new code: the one sent before is the one to type.
  expect(await sentCount(email)).toBe(before + 1);
  await enterCode(page, email, before);
  await expect(page).toHaveURL(/\/onboarding\/phone-verification$/);
  await confirmPhone(page, '0470 10 10 03', '+32470101003');

  await page.reload();
  await expect(page).toHaveURL(/\/onboarding\/password$/);
  await expect(heading(page)).toHaveText('Choose your password');
  await expect(page.getByText('Step 7 of 7')).toBeVisible();
  await choosePassword(page);
  await expect(heading(page)).toHaveText('Your account is ready and your card is activated');
  // The account exists: the tab forgot the flow, and the person, signed in, sees no onboarding.
  expect(await page.evaluate(() => sessionStorage.getItem('onboarding'))).toBeNull();
  await page.goto('/onboarding/password');
  await expect(page).toHaveURL(/\/user\/dashboard$/);
  await expect(heading(page)).toHaveText('Hello, Julie');
});

test('a reload on a flow the server no longer holds starts again and says it expired', async ({ page }) => {
  await page.goto('/onboarding');
  await page.evaluate(() =>
    sessionStorage.setItem('onboarding', JSON.stringify({ flow: 'gone'.repeat(11), channel: 'sms' })),
  );
  await page.goto('/onboarding/create');
  await expect(page).toHaveURL(/\/onboarding$/);
  await expect(heading(page)).toHaveText('Create your Tessera account');
  await expect(page.getByRole('alert')).toHaveText('Your activation has expired. Please start again.');
  expect(await page.evaluate(() => sessionStorage.getItem('onboarding'))).toBeNull();
});

test('a card that is already activated leads to the account that has it', async ({ page }) => {
  await startWithCard(page, '5065 0000 0000 0002', '200202');
  await expect(page).toHaveURL(/\/onboarding\/existing-card$/);
  await expect(heading(page)).toHaveText('This card is already activated');
  await expect(page.getByTestId('usernames')).toContainText('e***s@example.be');
  await expectNoAxeViolations(page);
  await page.getByRole('link', { name: 'Forgot your username?' }).click();
  await expect(page).toHaveURL(/\/forgot-username$/);
});

test('a step entered from anywhere the spec does not allow goes back to the start; existingCard is open to all', async ({
  page,
}) => {
  for (const step of ['create', 'password', 'welcome', 'onboarding-mfa', 'confirmation']) {
    await page.goto(`/onboarding/${step}`);
    await expect(page).toHaveURL(/\/onboarding$/);
    await expect(heading(page)).toHaveText('Create your Tessera account');
  }
  await page.goto('/onboarding/existing-card');
  await expect(heading(page)).toHaveText('This card is already activated');
  await expectNoAxeViolations(page);

  // Mid-flow, a history jump (back or forward button) to a step with no legal way in starts over.
  await startWithCard(page, '5065 0000 0000 1006', '100606');
  await expect(heading(page)).toHaveText('Welcome, Tim!');
  await page.evaluate(() => {
    window.history.pushState({}, '', '/onboarding/password');
    window.dispatchEvent(new PopStateEvent('popstate'));
  });
  await expect(page).toHaveURL(/\/onboarding$/);
  await expect(heading(page)).toHaveText('Create your Tessera account');
  // A legal one is followed: from welcome back to the card.
  await startWithCard(page, '5065 0000 0000 1006', '100606');
  await expect(heading(page)).toHaveText('Welcome, Tim!');
  await page.evaluate(() => {
    window.history.pushState({}, '', '/onboarding/card');
    window.dispatchEvent(new PopStateEvent('popstate'));
  });
  await expect(page).toHaveURL(/\/onboarding\/card$/);
  await expect(heading(page)).toHaveText('Your card');
});

test('a signed-in user does not see onboarding', async ({ page }) => {
  await signIn(page, 'emma.peeters@example.be');
  await toDashboard(page);
  await expect(heading(page)).toHaveText('Hello, Emma');
  await page.goto('/onboarding/card');
  await expect(page).toHaveURL(/\/user\/dashboard$/);
});

/** The Dutch texts of the screens, as a Dutch reader sees them. */
const nl = JSON.parse(readFileSync(new URL('../locales/nl.json', import.meta.url), 'utf8'));

test('the account speaks the language the person onboarded in, not the one the card holder was said to speak', async ({
  page,
}) => {
  test.slow();
  // On a phone, in Dutch; the employer said Sophie speaks French (the card's holder language).
  await page.setViewportSize({ width: 375, height: 812 });
  await page.goto('/onboarding');
  await page.getByLabel('Language').selectOption('nl');
  await expect(heading(page)).toHaveText(nl.onboarding.start.title);
  await page.getByRole('button', { name: nl.onboarding.start.card }).click();
  await page.getByLabel(nl.onboarding.card.number).fill('5065 0000 0000 1004');
  await page.getByLabel(nl.onboarding.card.activationCode).fill('100404');
  await expect(page.getByTestId('captcha')).toContainText(nl.captcha.ready);
  const next = () => page.getByRole('button', { name: nl.onboarding.continue }).click();
  await next();
  await expect(heading(page)).toHaveText('Welkom, Sophie!');
  await next();
  await page.getByLabel(nl.onboarding.terms.acceptTerms).check();
  await page.getByLabel(nl.onboarding.terms.acceptPrivacy).check();
  await next();
  await expect(page).toHaveURL(/\/onboarding\/create$/);
  // No choice of language on the way: the page's is the account's.
  await expect(page.getByText(nl.onboarding.details.text)).toBeVisible();
  await expect(page.getByRole('combobox')).toHaveCount(1);
  await page.screenshot({ path: 'test-results/onboarding-details-nl-375.png', fullPage: true });
  await next();
  const email = 'sophie.weber@example.lu';
  const mails = await sentCount(email);
  await page.getByRole('button', { name: nl.onboarding.sendCode }).click();
  await enterCode(page, email, mails, nl.mfa.code.label);
  await expect(page).toHaveURL(/\/onboarding\/phone-verification$/);
  const texts = await sentCount('+32470104004');
  await page.getByLabel(nl.login.field.phone).fill('0470 10 40 04');
  await page.getByRole('button', { name: nl.onboarding.sendCode }).click();
  await enterCode(page, '+32470104004', texts, nl.mfa.code.label);
  await expect(page).toHaveURL(/\/onboarding\/password$/);
  await page.getByLabel(nl.weakPassword.password, { exact: true }).fill(PASSWORD);
  await page.getByLabel(nl.weakPassword.confirmation).fill(PASSWORD);
  await page.getByRole('button', { name: nl.onboarding.password.submit }).click();
  await expect(page).toHaveURL(/\/onboarding\/confirmation$/);
  await next();
  await expect(page).toHaveURL(/\/user\/dashboard$/);
  const profile = await page.evaluate(async () => {
    const res = await fetch('/api/user', { headers: { 'x-device-id': localStorage.getItem('device_id')! } });
    return ((await res.json()) as { data: { language: string } }).data;
  });
  expect(profile.language).toBe('nl');
});

test("an invitation's terms speak of the account, never of a card", async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 812 });
  await page.goto('/onboarding');
  await page.getByRole('button', { name: /I received an email/ }).click();
  await page.getByLabel('Invitation code').fill('TESS-JOIN-0001');
  await captchaReady(page);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(heading(page)).toHaveText('Welcome, Anna!');
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page).toHaveURL(/\/onboarding\/terms-conditions$/);
  await expect(
    page.getByText('To use your account, please accept the terms of use and the privacy policy.'),
  ).toBeVisible();
  // Its refusal too.
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('alert')).toHaveText(
    'Please accept the terms and the privacy policy to use your account.',
  );
  await expect(page.locator('main')).not.toContainText(/card/i);
  await expectNoAxeViolations(page);
  await page.screenshot({ path: 'test-results/onboarding-invitation-terms-375.png', fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: 'test-results/onboarding-invitation-terms-1280.png', fullPage: true });
});

test('an invitation whose account must have a second factor ends on setting one up, as its password sign-in would', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto('/onboarding');
  await page.getByRole('button', { name: /I received an email/ }).click();
  await page.getByLabel('Invitation code').fill('TESS-JOIN-0004');
  await captchaReady(page);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(heading(page)).toHaveText('Welcome, Fenna!');
  await throughDetails(page);
  await page.getByRole('button', { name: 'Continue with this email address' }).click();
  await confirmPhone(page, '0470 10 40 44', '+32470104044');
  await choosePassword(page);
  await expect(heading(page)).toHaveText('Your account is ready');
  await page.screenshot({ path: 'test-results/onboarding-confirmation-1280.png', fullPage: true });
  await page.getByRole('button', { name: 'Continue' }).click();
  // Forced: the set-up of a second factor, nothing else.
  await expect(page).toHaveURL(/\/setup-mfa$/);
  await expect(heading(page)).toHaveText('Protect your account with two-step verification');
  await expect(page.getByRole('button', { name: 'Not now' })).toHaveCount(0);
  await page.goto('/user/dashboard');
  await expect(page).not.toHaveURL(/\/user\/dashboard$/);
});

test("a blocked card's message says how to reach support", async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 812 });
  await startWithCard(page, '5065 0000 0000 1007', '100707');
  const alert = page.getByRole('alert').last();
  await expect(alert).toContainText('This card is blocked. Please contact your employer or our support.');
  const support = alert.getByRole('link', { name: 'Contact our support (new tab)' });
  await expect(support).toHaveAttribute('href', 'https://help.tessera.example/');
  await expect(support).toHaveAttribute('target', '_blank');
  await expectNoAxeViolations(page);
  await page.screenshot({ path: 'test-results/onboarding-card-blocked-375.png', fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: 'test-results/onboarding-card-blocked-1280.png', fullPage: true });
  // In French too.
  await page.getByLabel('Language').selectOption('fr');
  await expect(alert.getByRole('link', { name: 'Contacter notre service clientèle (nouvel onglet)' })).toBeVisible();
});
