// Changing the password while signed in (/security/edit-password): from Security, the current
// password and a new one with its checklist; the other devices are signed out, and this one too when
// the person does not keep it; the new password signs in, the old one no longer does; the account is
// told by email (read from the real SMTP peer); axe, at 375 px. Pia's password is put back at the
// end (through the API, past the password history), so the other specs find it as it was.
import { expect, test, type Page } from '@playwright/test';
import { DEMO_MFA_USERS } from '../server/seed/demo.ts';
import { DEMO_PASSWORD, codeSentTo, expectNoAxeViolations, sentCount, signIn, user } from './support.ts';

test.use({ locale: 'en-GB', viewport: { width: 375, height: 812 } });

const pia = DEMO_MFA_USERS.find((u) => u.key === 'password')!;
const NEW_PASSWORD = 'Pia-changed-pass-26';

async function signInWithCode(page: Page, password: string) {
  const before = await sentCount(pia.email);
  await signIn(page, pia.email, password);
  await page.getByRole('button', { name: /Email a code/ }).click();
  await page.getByLabel('Security code').fill(await codeSentTo(pia.email, before));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Pia');
}

/** The mails the SMTP peer received for a recipient. */
async function mailsTo(recipient: string): Promise<string[]> {
  const { E2E_PEERS_PORT } = await import('../playwright.config.ts');
  const inbox = (await (await fetch(`http://127.0.0.1:${E2E_PEERS_PORT}/inbox`)).json()) as {
    mails: Array<{ to: string; raw: string }>;
  };
  return inbox.mails.filter((m) => m.to === recipient).map((m) => m.raw);
}

test('the password is changed from Security: checked, mailed about, and the old one no longer signs in', async ({
  page,
}) => {
  test.slow();
  await signInWithCode(page, DEMO_PASSWORD);
  await page.getByRole('link', { name: 'Security' }).first().click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Security settings');
  await page.getByRole('link', { name: 'Change your password' }).click();
  // The code of the sign-in is recent: the sensitive screen opens at once.
  await expect(page).toHaveURL(/\/security\/edit-password$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Change your password');
  await expectNoAxeViolations(page);

  // Nothing is sent without the current password; a wrong one is refused by the server.
  await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
  await page.getByLabel('Confirm the new password').fill(NEW_PASSWORD);
  await page.getByRole('button', { name: 'Change my password' }).click();
  await expect(page.getByText('Password is required')).toBeVisible();
  await page.getByLabel('Current password').fill('Not-my-password-1');
  await page.getByRole('button', { name: 'Change my password' }).click();
  await expect(page.getByRole('alert')).toHaveText('Your current password is not right.');
  // The checklist speaks for the new one.
  await page.getByLabel('Confirm the new password').fill(`${NEW_PASSWORD}?`);
  await page.getByLabel('Current password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Change my password' }).click();
  await expect(page.getByRole('alert')).toHaveText("Passwords don't match!");
  await page.getByLabel('Confirm the new password').fill(NEW_PASSWORD);
  await expectNoAxeViolations(page);
  await page.screenshot({ path: 'test-results/screens/edit-password-375.png', fullPage: true });

  // Not kept: this device is signed out with the others, and the sign-in screen says why.
  const mailsBefore = (await mailsTo(pia.email)).length;
  await page.getByLabel('Keep me signed in on this device').uncheck();
  await page.getByRole('button', { name: 'Change my password' }).click();
  await expect(page).toHaveURL(/\/login\/email$/);
  await expect(page.getByText('Your password was changed. Sign in with your new password.')).toBeVisible();
  await expect
    .poll(async () => (await mailsTo(pia.email)).slice(mailsBefore).join('\n'))
    .toContain('Subject: Your Tessera password was changed');

  // The old password no longer signs in; the new one does.
  await signIn(page, pia.email, DEMO_PASSWORD);
  await expect(page.getByRole('alert')).toContainText('Invalid username/password.');
  await signInWithCode(page, NEW_PASSWORD);

  // Kept: the success notice shows on this device, still signed in.
  await page.goto('/security/edit-password');
  await page.getByLabel('Current password').fill(NEW_PASSWORD);
  await page.getByLabel('New password', { exact: true }).fill(`${NEW_PASSWORD}-2`);
  await page.getByLabel('Confirm the new password').fill(`${NEW_PASSWORD}-2`);
  await page.getByRole('button', { name: 'Change my password' }).click();
  await expect(page.getByText('Your password was changed. Every other device was signed out.')).toBeVisible();
  // Focus comes to the notice, where the form was.
  await expect(page.locator(':focus')).toContainText('Your password was changed.');
  await expectNoAxeViolations(page);
  await page.getByRole('link', { name: 'Back to security settings' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Security settings');

  // Back to the demo password for the other specs: past the five the history remembers.
  let current = `${NEW_PASSWORD}-2`;
  for (const next of [
    'Pia-restore-pass-1',
    'Pia-restore-pass-2',
    'Pia-restore-pass-3',
    'Pia-restore-pass-4',
    DEMO_PASSWORD,
  ]) {
    // From the page (its cookie, its origin).
    const status = await page.evaluate(
      async (body) =>
        (
          await fetch('/api/user/password', {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-device-id': 'edit-password-restore' },
            body: JSON.stringify(body),
          })
        ).status,
      { current, password: next, confirmation: next, keepThisSession: true },
    );
    expect(status).toBe(200);
    current = next;
  }
});

test('an account without a second factor types its password again before the password screen opens', async ({
  page,
}) => {
  // Noah's password stays as it is: this walk stops at the form.
  const noah = user('newcomer');
  await signIn(page, noah.email);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Noah');
  await page.goto('/security');
  await page.getByRole('link', { name: 'Change your password' }).click();
  await expect(page).toHaveURL(/\/mfa\/methods\?single=true&redirect=%2Fsecurity%2Fedit-password$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText("Confirm it's you");
  // A password manager offers the password saved for this account's address.
  const username = page.locator('input[autocomplete="username"]');
  await expect(username).toHaveValue(noah.email);
  await expect(username).toBeHidden();
  // Only a password is asked: a wrong one is said as such, not as a wrong username.
  await page.getByLabel('Password').fill('not-his-password-1');
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('alert')).toHaveText('Invalid password.');
  await expect(page.getByLabel('Password')).toBeFocused();
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page).toHaveURL(/\/security\/edit-password$/);
  await expect(page.getByLabel('Current password')).toBeVisible();
  await expectNoAxeViolations(page);
});
