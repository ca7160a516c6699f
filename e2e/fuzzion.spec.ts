// The merge of a duplicated account, in the server's order (docs/decisions/merge-proofs.md): the code
// sent to the address being added comes back first, then the offer, then (where the other account
// has one) that account's own second factor. Nothing about the other account shows before the code.
import { expect, test, type Page } from '@playwright/test';
import { DEMO_MFA_USERS } from '../server/seed/demo.ts';
import { formatPhone } from '../contract/rules.ts';
import { addPasskey, presence, virtualAuthenticator } from './passkeyKit.ts';
import { codeSentTo, expectNoAxeViolations, mailsTo, sentCount, signIn, signInWithEmailCode, user } from './support.ts';

test.use({ locale: 'en-GB' });

// Mia and her older accounts are this walk's alone: a merge closes the older one.
const mia = DEMO_MFA_USERS.find((u) => u.key === 'merge')!;
const older = user('duplicate');
const oldest = user('duplicateCode');
const spare = user('duplicateSpare');
const secured = DEMO_MFA_USERS.find((u) => u.key === 'duplicateSecured')!;
const withPasskey = DEMO_MFA_USERS.find((u) => u.key === 'duplicatePasskey')!;
const SPARE_EMAIL = spare.extraEmails![0]!;

/** Mia signs in with her code; after a first merge she has several platforms' ids, so the sign-in
 * may end on the chooser rather than the dashboard. */
async function signInAsMia(page: Page) {
  const before = await sentCount(mia.email);
  await signIn(page, mia.email);
  await page.getByRole('button', { name: /Email a code/ }).click();
  await page.getByLabel('Security code').fill(await codeSentTo(mia.email, before));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(/Mia/);
}

/** Mia, on her emails, adds an address: a code goes to it, as to any address. */
async function addEmail(page: Page, email: string) {
  await page.goto('/profile/edit-credentials');
  const emails = page.getByRole('region', { name: 'Email addresses' });
  await emails.getByRole('button', { name: 'Add an email address' }).click();
  await page.getByLabel('New email address').fill(email);
  const before = await sentCount(email);
  await page.getByRole('button', { name: 'Send a code' }).click();
  await expect(emails.getByText(`We sent a code to ${email}.`, { exact: false })).toBeVisible();
  // Nothing yet says the address is another account's.
  await expect(page.getByText('another Tessera account', { exact: false })).toHaveCount(0);
  return { emails, before };
}

/** The code the address received, typed: the profile offers the choice, and the merge opens. */
async function offerFor(page: Page, email: string) {
  const { before } = await addEmail(page, email);
  await page.getByLabel('Security code').fill(await codeSentTo(email, before));
  await page.getByRole('button', { name: 'Merge the other account into this one' }).click();
  await expect(page).toHaveURL(/\/duplicated$/);
  await expect(page.getByText(`The email address ${email} belongs to another Tessera account.`)).toBeVisible();
}

/** The screen at both widths the app is checked at, for a look (and no sideways scrolling). */
async function shoot(page: Page, name: string) {
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: width === 375 ? 740 : 900 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    await page.screenshot({ path: `/tmp/merge-${name}-${width}.png`, fullPage: true });
  }
}

test("a stranger's wrong code adds nothing and tells nothing of the other account", async ({ page }) => {
  await signInAsMia(page);
  const { emails } = await addEmail(page, oldest.email);
  await page.getByLabel('Security code').fill('00000000');
  await expect(emails.getByText('invalid', { exact: false })).toBeVisible();
  await expect(page).toHaveURL(/\/profile\/edit-credentials$/);
  await expect(page.getByText('another Tessera account', { exact: false })).toHaveCount(0);
  await expect(page.getByText('already in use', { exact: false })).toHaveCount(0);
  expect(await page.evaluate(() => sessionStorage.getItem('fuzzion_payload'))).toBeNull();
  await expectNoAxeViolations(page);
});

test('the code of an address another account holds leaves one choice on the profile, with no error: merge, take it off the other account where it may, or another address', async ({
  page,
}) => {
  await signInAsMia(page);
  const noError = async () => {
    await expect(page.getByText('already in use', { exact: false })).toHaveCount(0);
    await expect(page.getByRole('alert')).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Send a code' })).toHaveCount(0);
  };

  // On a phone: a number whose account would be left without a phone cannot leave it.
  await page.setViewportSize({ width: 375, height: 740 });
  await page.goto('/profile/edit-credentials');
  const phones = page.getByRole('region', { name: 'Phone numbers' });
  await phones.getByRole('button', { name: 'Add a phone number' }).click();
  await page.getByLabel('New phone number').fill(oldest.phone);
  const sent = await sentCount(oldest.phone);
  await page.getByRole('button', { name: 'Send a code' }).click();
  await page.getByLabel('Security code').fill(await codeSentTo(oldest.phone, sent));
  const title = phones.getByRole('heading', { name: `${oldest.phone} is on another Tessera account` });
  await expect(title).toBeVisible();
  await expect(title).toBeFocused();
  await expect(page).toHaveURL(/\/profile\/edit-credentials$/);
  await noError();
  await expect(phones.getByRole('button', { name: 'Merge the other account into this one' })).toBeVisible();
  await expect(phones.getByRole('button', { name: /off the other account/ })).toHaveCount(0);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await expectNoAxeViolations(page);
  await page.screenshot({ path: '/tmp/merge-choice-375.png', fullPage: true });
  // Another number: the form again, empty, and nothing said of the other account.
  await phones.getByRole('button', { name: 'Use another phone number' }).click();
  await expect(page.getByLabel('New phone number')).toHaveValue('');
  await expect(page.getByLabel('New phone number')).toBeFocused();
  await expect(page.getByText('another Tessera account', { exact: false })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Send a code' })).toBeVisible();
  await phones.getByRole('button', { name: 'Cancel' }).click();

  // On a desktop: an account that keeps an email and a phone can lose this one, on the merge's screen.
  await page.setViewportSize({ width: 1280, height: 900 });
  const { emails, before } = await addEmail(page, SPARE_EMAIL);
  await page.getByLabel('Security code').fill(await codeSentTo(SPARE_EMAIL, before));
  await expect(emails.getByRole('heading', { name: `${SPARE_EMAIL} is on another Tessera account` })).toBeVisible();
  await noError();
  await expect(emails.getByRole('button', { name: 'Merge the other account into this one' })).toBeVisible();
  await expect(emails.getByRole('button', { name: 'Use another email address' })).toBeVisible();
  await expectNoAxeViolations(page);
  await page.screenshot({ path: '/tmp/merge-choice-1280.png', fullPage: true });
  await emails.getByRole('button', { name: 'Take this email address off the other account' }).click();
  await expect(page).toHaveURL(/\/duplicated$/);
  await expect(page.getByText(`The email address ${SPARE_EMAIL} belongs to another Tessera account.`)).toBeVisible();
  await expect(page.getByRole('button', { name: 'No, take this email address off the other account' })).toBeVisible();
});

test('an account without a second factor is merged once the code to its address came back; Back and reload show the outcome', async ({
  page,
}) => {
  await signInAsMia(page);
  await offerFor(page, older.email);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Merge your accounts');
  await expect(
    page.getByText('That account has no two-step verification, so the code you just typed is enough to confirm it.'),
  ).toBeVisible();
  await expectNoAxeViolations(page);
  // Declining would leave the older account without an email: said, and nothing changes.
  await page.getByRole('button', { name: 'No, take this email address off the other account' }).click();
  await expect(
    page.getByText('The other account must keep at least one email address and one phone number.', { exact: false }),
  ).toBeVisible();
  await page.getByRole('button', { name: 'Back' }).click();

  // A reload keeps the offer; merging asks nothing more.
  await page.reload();
  await page.getByRole('button', { name: 'Yes, merge the accounts' }).click();
  await expect(page).toHaveURL(/\/fuzzion-success$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Done');
  await expect(
    page.getByText("Your accounts are merged. From now on, sign in with this account's password."),
  ).toBeVisible();
  await expect(page.getByRole('listitem').filter({ hasText: mia.email })).toContainText('primary');
  await expect(page.getByRole('listitem').filter({ hasText: older.email })).toBeVisible();
  // The phones as people read them, as the profile writes them.
  await expect(page.getByRole('listitem').filter({ hasText: /^\+32 470 / })).not.toHaveCount(0);
  await expect(page.getByRole('listitem').filter({ hasText: /^\+32470/ })).toHaveCount(0);
  await expectNoAxeViolations(page);
  // The older account hears of it at its address.
  await expect.poll(async () => (await mailsTo(older.email)).length).toBeGreaterThan(1);

  // Reload and Back show the outcome, not an offer already spent.
  await page.reload();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Done');
  await page.goBack();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Done');
  await page.getByRole('link', { name: 'Go to your profile' }).click();
  await expect(page.getByRole('region', { name: 'Contact information' })).toContainText(older.email);
});

test('while the offer is open every other screen shows it, the further proofs show on mfa-methods, and another address gives it up', async ({
  page,
}) => {
  await signInAsMia(page);
  await offerFor(page, secured.email);
  await page.getByRole('button', { name: 'Yes, merge the accounts' }).click();
  const choice = page.getByRole('group', { name: 'How do you want to confirm it?' });
  await expect(choice).toBeVisible();
  // The spec's entry point for further proofs: mfa-methods with isFuzzion=true (a link, a reload).
  await page.goto('/mfa/methods?isFuzzion=true&methods=%5B1%5D');
  await expect(choice).toBeVisible();
  await expect(page.getByText('That account asks for one more proof.')).toBeVisible();
  await expect(choice).not.toContainText(secured.phone);
  await expectNoAxeViolations(page);
  await shoot(page, 'proofs');
  // Elsewhere, typed or followed: the offer, as long as it is open; Back and Forward too.
  for (const path of ['/user/dashboard', '/security', '/profile']) {
    await page.goto(path);
    await expect(page).toHaveURL(/\/duplicated$/);
    await expect(
      page.getByText(`The email address ${secured.email} belongs to another Tessera account.`),
    ).toBeVisible();
  }
  await page.goBack();
  await expect(page).toHaveURL(/\/duplicated$/);
  // Another address: the offer is spent, and the person is free again, on the addresses.
  await page.getByRole('button', { name: 'Use another email address' }).click();
  await expect(page).toHaveURL(/\/profile\/edit-credentials$/);
  await page.goto('/user/dashboard');
  await expect(page).toHaveURL(/\/user\/dashboard$/);
  await page.goto('/duplicated');
  await expect(
    page.getByText('A technical error occurred during the merging of the accounts. Please try again later.'),
  ).toBeVisible();
});

test("the other account's password, where it counts, is asked as a password: a wrong one says so, not as a username (375 px)", async ({
  page,
}) => {
  await signInAsMia(page);
  await page.setViewportSize({ width: 375, height: 740 });
  // Her older account's SMS goes to this number: its code stands for that factor, the password is the other.
  await page.goto('/profile/edit-credentials');
  const phones = page.getByRole('region', { name: 'Phone numbers' });
  await phones.getByRole('button', { name: 'Add a phone number' }).click();
  await page.getByLabel('New phone number').fill(secured.phone);
  const sent = await sentCount(secured.phone);
  await page.getByRole('button', { name: 'Send a code' }).click();
  await page.getByLabel('Security code').fill(await codeSentTo(secured.phone, sent));
  await phones.getByRole('button', { name: 'Merge the other account into this one' }).click();
  await expect(page).toHaveURL(/\/duplicated$/);
  await page.getByRole('button', { name: 'Yes, merge the accounts' }).click();
  await page.getByRole('button', { name: "Type the other account's password" }).click();
  // The form opens in place (the address stays): focus goes to its field all the same.
  const password = page.getByLabel('Password of the other account');
  await expect(password).toBeFocused();
  await expect(password).toHaveAttribute('autocomplete', 'current-password');
  await password.fill('Not-her-password-1');
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByText('Invalid password.')).toBeVisible();
  await expect(page.getByText('username', { exact: false })).toHaveCount(0);
  await expectNoAxeViolations(page);
  // Given up: the number is free to be typed again, and nothing changed on either account.
  await page.getByRole('button', { name: 'Use another phone number' }).click();
  await expect(page).toHaveURL(/\/profile\/edit-credentials$/);
});

test('an account with a second factor is merged only with it: the offer, its method, its code', async ({ page }) => {
  await signInAsMia(page);
  await offerFor(page, secured.email);
  await expect(
    page.getByText(
      'Before anything changes, you confirm the other account with one of its own two-step verification methods',
      { exact: false },
    ),
  ).toBeVisible();
  await expectNoAxeViolations(page);
  await shoot(page, 'offer');
  await page.getByRole('button', { name: 'Yes, merge the accounts' }).click();

  // Its methods, as its sign-in lists them (masked), and nothing weaker.
  const choice = page.getByRole('group', { name: 'How do you want to confirm it?' });
  await expect(choice).toBeVisible();
  await expect(choice.getByRole('button', { name: /^Text a code to / })).toBeVisible();
  await expect(choice.getByRole('button', { name: /card/i })).toHaveCount(0);
  await expect(choice).not.toContainText(secured.phone);
  await expectNoAxeViolations(page);
  await shoot(page, 'methods');
  // Back is the offer, and the offer leads here again.
  await page.getByRole('button', { name: 'Back' }).click();
  await page.getByRole('button', { name: 'Yes, merge the accounts' }).click();

  const before = await sentCount(secured.phone);
  await choice.getByRole('button', { name: /^Text a code to / }).click();
  await expect(page.getByRole('heading', { level: 2 })).toHaveText('Check your text messages');
  await expect(page.getByLabel('Security code')).toBeFocused();
  await expect(page.getByText(/The code expires in 1[45]:\d\d\./)).toBeVisible();
  await expectNoAxeViolations(page);
  await shoot(page, 'code');
  // A wrong code stays here; the right one, sent to the other account's phone, merges.
  await page.getByLabel('Security code').fill('00000000');
  await expect(page.getByText('invalid', { exact: false })).toBeVisible();
  await expect(page).toHaveURL(/\/duplicated$/);
  await page.getByLabel('Security code').fill(await codeSentTo(secured.phone, before));
  await expect(page).toHaveURL(/\/fuzzion-success$/);
  await expect(page.getByRole('listitem').filter({ hasText: secured.email })).toBeVisible();
  await expect(page.getByRole('listitem').filter({ hasText: formatPhone(secured.phone) })).toBeVisible();
  await expectNoAxeViolations(page);
  await shoot(page, 'success');
});

test('declining takes the address off the other account, which keeps its own; then it is added with its code', async ({
  page,
}) => {
  await signInAsMia(page);
  await offerFor(page, SPARE_EMAIL);
  await page.getByRole('button', { name: 'No, take this email address off the other account' }).click();
  await expect(page).toHaveURL(/\/fuzzion-success$/);
  await expect(
    page.getByText('The address is no longer on the other account. You can add it to this one now.'),
  ).toBeVisible();
  await expect(page.getByRole('listitem').filter({ hasText: SPARE_EMAIL })).toHaveCount(0);
  await expectNoAxeViolations(page);

  // Free now: it joins Mia's account with the code it receives.
  const { emails, before } = await addEmail(page, SPARE_EMAIL);
  await page.getByLabel('Security code').fill(await codeSentTo(SPARE_EMAIL, before));
  await expect(emails.getByRole('listitem').filter({ hasText: SPARE_EMAIL })).toContainText('Verified');
});

test('a phone added as a second factor from Security that another account has leads to the offer once its code came back', async ({
  page,
}) => {
  await signInAsMia(page);
  await page.goto('/security/mfa-edit');
  // Security's screens hold a recent step-up (her sign-in's code, or one asked now), which the
  // merge's calls ask for too.
  await page.waitForURL(/\/(mfa\/methods\?single=true|security\/mfa-edit$)/);
  let before = await sentCount(mia.email);
  if (new URL(page.url()).pathname === '/mfa/methods') {
    await page.getByRole('button', { name: /Email a code/ }).click();
    await page.getByLabel('Security code').fill(await codeSentTo(mia.email, before));
  }
  await expect(page).toHaveURL(/\/security\/mfa-edit$/);
  await page.getByRole('link', { name: 'Add a method' }).click();
  await page.getByRole('button', { name: 'By text message (SMS)' }).click();
  await page.getByLabel('Phone number').fill(oldest.phone);
  before = await sentCount(oldest.phone);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  // The code goes to that number, as to any: nothing yet says whose it is.
  await expect(page).toHaveURL(/\/setup-mfa\/confirmation$/);
  await expect(page.getByText('already in use', { exact: false })).toHaveCount(0);
  await page.getByLabel('Security code').fill(await codeSentTo(oldest.phone, before));
  await expect(page).toHaveURL(/\/duplicated$/);
  await expect(page.getByText(`The phone number ${oldest.phone} belongs to another Tessera account.`)).toBeVisible();
  await expect(page.getByRole('button', { name: 'No, take this phone number off the other account' })).toBeVisible();
  await expectNoAxeViolations(page);
});

test('the merge screen without an offer says so and leads back to the profile', async ({ page }) => {
  await signIn(page, user('customer').email);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(/Hello, Claire/);
  await page.goto('/duplicated');
  await expect(
    page.getByText('A technical error occurred during the merging of the accounts. Please try again later.'),
  ).toBeVisible();
  await expect(page.getByRole('button', { name: 'Back to your emails and phones' })).toBeVisible();
  await expectNoAxeViolations(page);
  await page.getByRole('button', { name: 'Back to your emails and phones' }).click();
  // The addresses' screen is sensitive: a step-up first, which leads there.
  await expect(page).toHaveURL(/\/mfa\/methods\?single=true&redirect=%2Fprofile%2Fedit-credentials$/);
});

test('an account with a passkey is proven by it: a cancelled request says so, the passkey merges, and moves to this account (375 px)', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 375, height: 812 });
  // Mia's older account gets a passkey from its Security, in this browser's authenticator.
  const authenticator = await virtualAuthenticator(page);
  const { cdp, authenticatorId } = authenticator;
  await signInWithEmailCode(page, withPasskey.email, 'Mia');
  await addPasskey(page, authenticator, 'Old laptop');
  await page.getByRole('link', { name: 'Log out' }).first().click();
  await expect(page).toHaveURL(/\/login\/email$/);

  await signInAsMia(page);
  await offerFor(page, withPasskey.email);
  await page.getByRole('button', { name: 'Yes, merge the accounts' }).click();
  // Its email code is the code just typed: its passkey (or its password) is the proof left.
  const choice = page.getByRole('group', { name: 'How do you want to confirm it?' });
  const usePasskey = choice.getByRole('button', { name: 'Use my passkey: Old laptop' });
  await expect(usePasskey).toBeVisible();
  await expect(choice.getByRole('button', { name: "Type the other account's password" })).toBeVisible();
  await expect(choice.getByRole('button', { name: /^Email a code/ })).toHaveCount(0);
  await expectNoAxeViolations(page);
  await page.screenshot({ path: 'test-results/screens/merge-passkey-choice-375.png', fullPage: true });

  // The authenticator no longer holds it (as when the person cancels): said so, the choice stays.
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  expect(credentials).toHaveLength(1);
  await cdp.send('WebAuthn.clearCredentials', { authenticatorId });
  await presence(authenticator, true);
  await usePasskey.click();
  await expect(page.getByRole('alert')).toHaveText(
    'The passkey was not used: the request was cancelled or timed out. Try again, or choose another way.',
  );
  await expect(usePasskey).not.toHaveAttribute('aria-busy');
  await expect(page).toHaveURL(/\/duplicated$/);
  await expectNoAxeViolations(page);
  await page.screenshot({ path: 'test-results/screens/merge-passkey-cancelled-375.png', fullPage: true });

  // The passkey back: the same choice proves the account, and the merge is done.
  await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: credentials[0]! });
  await usePasskey.click();
  await expect(page).toHaveURL(/\/fuzzion-success$/);
  await expect(page.getByRole('listitem').filter({ hasText: withPasskey.email })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await expectNoAxeViolations(page);
  await page.screenshot({ path: 'test-results/screens/merge-passkey-success-375.png', fullPage: true });
  await presence(authenticator, false);

  // The passkey is Mia's now; deleted, she is left with her email code, as seeded.
  await page.goto('/security/mfa-edit');
  await page.getByRole('button', { name: 'Delete: Passkey: Old laptop' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Yes, delete it' }).click();
  await expect(page.getByTestId('save-notice')).toHaveText('The method was deleted.');
  await expect(page.getByTestId('mfa-edit')).not.toContainText('Old laptop');
});
