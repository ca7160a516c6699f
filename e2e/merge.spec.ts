import { expect, test, type Page } from '@playwright/test';
import { DEMO_MFA_USERS, DEMO_PASSWORD } from '../server/seed/demo.ts';
import { codeSentTo, expectNoAxeViolations, mailsTo, sentCount, signIn, user } from './support.ts';

test.use({ locale: 'en-GB' });

// Mia and her older accounts are this walk's alone: a merge closes the older one.
const mia = DEMO_MFA_USERS.find((u) => u.key === 'merge')!;
const older = user('duplicate');
const oldest = user('duplicateCode');
const spare = user('duplicateSpare');
const SPARE_EMAIL = spare.extraEmails![0]!;

/** Mia signs in with her code; after a first merge she has several platforms' ids, so the sign-in
 * may end on the chooser rather than the dashboard. */
async function signInAsMia(page: Page) {
  const before = await sentCount(mia.email);
  await signIn(page, mia.email);
  await page.getByRole('button', { name: /Email a code/ }).click();
  await page.getByLabel('Security code').fill(await codeSentTo(mia.email, before));
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(/Mia/);
}

/** Mia, on her emails, types another account's address and follows the offer to /duplicated. */
async function offerFor(page: Page, email: string) {
  await signInAsMia(page);
  await page.goto('/profile/edit-credentials');
  const emails = page.getByRole('region', { name: 'Email addresses' });
  await emails.getByRole('button', { name: 'Add an email address' }).click();
  await page.getByLabel('New email address').fill(email);
  await page.getByRole('button', { name: 'Send a code' }).click();
  await emails.getByRole('button', { name: 'Merge the accounts' }).click();
  await expect(page).toHaveURL(/\/duplicated$/);
}

test('a duplicate found while adding an email is merged after the other account\'s password, at 375 px; Back and reload show the outcome', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 740 });
  await signInAsMia(page);
  await page.goto('/profile/edit-credentials');
  const emails = page.getByRole('region', { name: 'Email addresses' });
  await emails.getByRole('button', { name: 'Add an email address' }).click();
  await page.getByLabel('New email address').fill(older.email);
  await page.getByRole('button', { name: 'Send a code' }).click();
  await expect(emails.getByText('This email is already in use. Please use another one.')).toBeVisible();
  await expect(emails.getByText('This email address is on another Tessera account.', { exact: false })).toBeVisible();
  await expectNoAxeViolations(page);
  await emails.getByRole('button', { name: 'Merge the accounts' }).click();

  // The offer.
  await expect(page).toHaveURL(/\/duplicated$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Merge your accounts');
  await expect(page.getByText(`The email address ${older.email} belongs to another Tessera account.`)).toBeVisible();
  await expectNoAxeViolations(page);
  // Declining would leave the older account without an email: said, and nothing changes.
  await page.getByRole('button', { name: 'No, take this email address off the other account' }).click();
  await expect(page.getByText('The other account must keep at least one email address and one phone number.', { exact: false })).toBeVisible();
  await page.getByRole('button', { name: 'Back' }).click();

  // A reload keeps the offer.
  await page.reload();
  await expect(page.getByRole('button', { name: 'Yes, merge the accounts' })).toBeVisible();
  await page.getByRole('button', { name: 'Yes, merge the accounts' }).click();
  await expect(page.getByRole('group', { name: 'How do you want to prove it?' })).toBeVisible();
  await expectNoAxeViolations(page);
  await page.getByRole('button', { name: "Type the other account's password" }).click();
  await page.getByLabel('Password of the other account').fill('Not-the-password-1!');
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByText('Invalid username/password.')).toBeVisible();
  await page.getByLabel('Password of the other account').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Confirm' }).click();

  // Merged: what the account now holds.
  await expect(page).toHaveURL(/\/fuzzion-success$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Done');
  await expect(page.getByText("Your accounts are merged. From now on, sign in with this account's password.")).toBeVisible();
  await expect(page.getByRole('listitem').filter({ hasText: mia.email })).toContainText('primary');
  await expect(page.getByRole('listitem').filter({ hasText: older.email })).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await expectNoAxeViolations(page);
  // Both accounts hear of it at their primary address.
  await expect.poll(async () => (await mailsTo(older.email)).length).toBeGreaterThan(0);

  // Reload and Back show the outcome, not an offer already spent.
  await page.reload();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Done');
  await page.goBack();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Done');

  // The older account's email is Mia's now.
  await page.getByRole('link', { name: 'Go to your profile' }).click();
  await expect(page.getByRole('region', { name: 'Contact information' })).toContainText(older.email);
});

test('the merge screen without an offer says so and leads back to the profile', async ({ page }) => {
  await signIn(page, user('customer').email);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(/Hello, Claire/);
  await page.goto('/duplicated');
  await expect(page.getByText('A technical error occurred during the merging of the accounts. Please try again later.')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Back to your emails and phones' })).toBeVisible();
  await expectNoAxeViolations(page);
});

test('a duplicate is merged with the code sent to its address, at 1280 px', async ({ page }) => {
  await offerFor(page, oldest.email);
  await page.getByRole('button', { name: 'Yes, merge the accounts' }).click();
  const before = await sentCount(oldest.email);
  await page.getByRole('button', { name: 'Send a code to this email address' }).click();
  await expect(page.getByText(`We sent a code to ${oldest.email}.`)).toBeVisible();
  await expect(page.getByLabel('Security code')).toBeVisible();
  await expectNoAxeViolations(page);
  await page.getByLabel('Security code').fill(await codeSentTo(oldest.email, before));
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page).toHaveURL(/\/fuzzion-success$/);
  await expect(page.getByRole('listitem').filter({ hasText: oldest.email })).toBeVisible();
  await expect(page.getByRole('listitem').filter({ hasText: oldest.phone })).toBeVisible();
  await expectNoAxeViolations(page);
});

test('declining takes the address off the other account, which keeps its own; then it is added with its code', async ({ page }) => {
  await offerFor(page, SPARE_EMAIL);
  await page.getByRole('button', { name: 'No, take this email address off the other account' }).click();
  await expect(page.getByText(`First, prove that the other account is yours. Then ${SPARE_EMAIL} leaves it.`)).toBeVisible();
  await expectNoAxeViolations(page);
  await page.getByRole('button', { name: "Type the other account's password" }).click();
  await page.getByLabel('Password of the other account').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page).toHaveURL(/\/fuzzion-success$/);
  await expect(page.getByText('The address is no longer on the other account. You can add it to this one now.')).toBeVisible();
  await expect(page.getByRole('listitem').filter({ hasText: SPARE_EMAIL })).toHaveCount(0);
  await expectNoAxeViolations(page);

  // Free now: it joins Mia's account with the code it receives.
  await page.goto('/profile/edit-credentials');
  const emails = page.getByRole('region', { name: 'Email addresses' });
  await emails.getByRole('button', { name: 'Add an email address' }).click();
  await page.getByLabel('New email address').fill(SPARE_EMAIL);
  const before = await sentCount(SPARE_EMAIL);
  await page.getByRole('button', { name: 'Send a code' }).click();
  await page.getByLabel('Security code').fill(await codeSentTo(SPARE_EMAIL, before));
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(emails.getByRole('listitem').filter({ hasText: SPARE_EMAIL })).toContainText('Verified');
});
