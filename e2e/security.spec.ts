import { expect, test, type Page } from '@playwright/test';
import { TOTP } from 'otpauth';
import { DEMO_MFA_USERS, DEMO_PASSWORD, DEMO_USERS } from '../server/seed/demo.ts';
import { codeSentTo, expectNoAxeViolations, KATO_CARD, sentCount, signIn, signInWithEmailCode } from './support.ts';

test.use({ locale: 'en-GB' });

const sara = DEMO_MFA_USERS.find((u) => u.key === 'secure')!;

test('a sensitive screen asks for a second factor first, then returns to it', async ({ page }) => {
  // First sign-in with a code, trusting the device; the second one is by password alone.
  let before = await sentCount(sara.email);
  await signIn(page, sara.email);
  await page.getByRole('button', { name: /Email a code/ }).click();
  await page.getByLabel('Trust this device: do not ask again on it').check();
  await page.getByLabel('Security code').fill(await codeSentTo(sara.email, before));
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
  await expect(page).toHaveURL(/\/security\/mfa-edit$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Verification methods');
  await expectNoAxeViolations(page);

  // Making it primary waits, busy, while the server answers; nothing else can be pressed meanwhile.
  let answer = () => {};
  const answered = new Promise<void>((resolve) => (answer = resolve));
  await page.route('**/api/mfa/switch-primary/*', async (route) => {
    await answered;
    return route.fallback();
  });
  const makePrimary = page.getByRole('button', { name: /Make primary: Phone/ });
  await makePrimary.click();
  await expect(makePrimary).toHaveAttribute('aria-busy', 'true');
  await expect(makePrimary.getByTestId('button-spinner')).toBeVisible();
  await expect(page.getByRole('button', { name: /Delete: Phone/ })).toBeDisabled();
  answer();
  await expect(page.getByRole('status')).toHaveText('Your primary method was changed.');
  await page.getByRole('button', { name: /Delete: Phone/ }).click();
  // A deletion asks first and says what follows; No changes nothing, and focus is on the question.
  const question = page.getByRole('alertdialog');
  await expect(question.getByRole('heading')).toHaveText('Delete Phone +32 ••• •• •• 88?');
  await expect(question.getByRole('heading')).toBeFocused();
  await expectNoAxeViolations(page);
  await question.getByRole('button', { name: 'No, keep it as it is' }).click();
  await expect(page.getByRole('alertdialog')).toHaveCount(0);
  await expect(page.getByTestId('mfa-edit')).toContainText('Phone');
  // A deletion the server fails says the spec's words (§8), and the method stays.
  await page.route('**/api/mfa/*', (route) =>
    route.request().method() === 'DELETE'
      ? route.fulfill({ status: 500, json: { code: 'internal_error', message: 'boom' } })
      : route.fallback(),
  );
  await page.getByRole('button', { name: /Delete: Phone/ }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Yes, delete it' }).click();
  await expect(page.getByRole('alert')).toHaveText('An error occurred while trying to delete the item.');
  await expect(page.getByTestId('mfa-edit')).toContainText('Phone');
  await page.unroute('**/api/mfa/*');
  await page.getByRole('button', { name: /Delete: Phone/ }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Yes, delete it' }).click();
  await expect(page.getByRole('status')).toHaveText('The method was deleted.');
  await page.getByRole('button', { name: /Delete: Email/ }).click();
  await expect(page.getByRole('alertdialog')).toContainText('This is your primary method');
  await page.getByRole('alertdialog').getByRole('button', { name: 'Yes, delete it' }).click();
  await expect(page.getByRole('alert')).toHaveText('You cannot delete your last email or phone verification method.');

  // Adding an authenticator app: QR code or key, a 6-digit code, then the recovery keys once.
  await page.getByRole('link', { name: 'Security settings' }).click();
  await page.getByRole('link', { name: 'Add an authenticator app' }).click();
  await expect(page.getByRole('img', { name: /QR code/ })).toBeVisible();
  await expectNoAxeViolations(page);
  // The key shows in groups of four, with a link that opens the app on a phone.
  await expect(page.getByTestId('totp-secret')).toHaveText(/^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/);
  await expect(page.getByRole('link', { name: 'Open in my authenticator app' })).toHaveAttribute(
    'href',
    /^otpauth:\/\/totp\//,
  );
  // A way back that changes nothing: the set-up is not done until the app's first code.
  await expect(page.getByRole('main').getByRole('link', { name: 'Back to security settings' })).toBeVisible();
  const secret = (await page.getByTestId('totp-secret').textContent())!.replace(/\s/g, '');
  await page.getByLabel('6-digit code').fill(new TOTP({ secret, digits: 6, period: 30 }).generate());
  await expect(page).toHaveURL(/\/setup-totp\/success$/);
  await expect(page.getByTestId('recovery-keys').getByRole('listitem')).toHaveCount(10);
  await page.getByRole('button', { name: 'I have saved them' }).click();
  await expect(page.getByTestId('mfa-methods')).toContainText('Authenticator app');
});

test('a security screen reached by reload or a typed address opens, and asks for a second factor only where it must', async ({
  page,
}) => {
  await signInWithEmailCode(page, sara.email, 'Sara');
  await page.goto('/security');
  await expect(page.getByTestId('mfa-methods')).toContainText('Email to s***@example.be');
  await page.reload();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Security settings');
  await expect(page.getByTestId('mfa-methods')).toContainText('Email to s***@example.be');
  // The sensitive screen, opened cold within the step-up window, opens too.
  await page.goto('/security/mfa-edit');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Verification methods');
});

const noah = DEMO_USERS.find((u) => u.key === 'newcomer')!;

/** On a set-up's destination screen: types it, proves it with the code sent there, and goes on. */
async function proveDestination(page: Page, field: string, value: string, recipient: string) {
  await page.getByLabel(field).fill(value);
  const before = await sentCount(recipient);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await page.getByLabel('Security code').fill(await codeSentTo(recipient, before));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Two-step verification is on');
  await page.getByRole('button', { name: 'Continue' }).click();
}

// An account without a second factor turns one on from Security: the password stands in for the
// step-up, then any method can be added, removed and added back. The journey starts on a desktop
// and goes on at a phone's width: both must hold it.
test('an account without a second factor turns it on from Security, at 1280 then 375 px', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page, noah.email);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Noah');
  await page.getByRole('link', { name: 'Security' }).click();
  await expect(page.getByText('Two-step verification is off.', { exact: false })).toBeVisible();
  await expectNoAxeViolations(page);
  await page.getByRole('link', { name: 'Turn on two-step verification' }).click();

  // No second factor to step up with: the password, typed again.
  await expect(page).toHaveURL(/\/mfa\/methods\?single=true&redirect=%2Fsecurity%2Fmfa-edit$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText("Confirm it's you");
  await expectNoAxeViolations(page);
  await page.screenshot({ path: 'test-results/screens/security-password-step-up-1280.png' });
  await page.getByLabel('Password').fill('not-my-password');
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('alert')).toHaveText('Invalid password.');
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page).toHaveURL(/\/security\/mfa-edit$/);
  await expect(page.getByText('You have no verification method yet.')).toBeVisible();
  await page.setViewportSize({ width: 375, height: 740 });
  await page.screenshot({ path: 'test-results/screens/security-first-method-375.png', fullPage: true });

  // A first method: the email, proven by its code.
  await page.getByRole('link', { name: 'Add a method' }).click();
  await expect(page).toHaveURL(/\/setup-mfa\/selection$/);
  await expectNoAxeViolations(page);
  await page.getByRole('button', { name: 'By email' }).click();
  await expect(page).toHaveURL(/\/setup-mfa\/email$/);
  await proveDestination(page, 'Email address', noah.email, noah.email);
  await expect(page).toHaveURL(/\/security\/mfa-edit$/);
  await expect(page.getByTestId('mfa-edit')).toContainText('Email to n***@example.be');
  // Said once (spec §8 "MFA added"): the next change says its own.
  await expect(page.getByRole('status')).toHaveText('Your new second factor is on.');

  // A further one, by phone; Back from the choice returns to Security.
  await page.getByRole('link', { name: 'Add a method' }).click();
  await page.getByRole('button', { name: 'Back' }).click();
  await expect(page).toHaveURL(/\/security\/mfa-edit$/);
  await page.getByRole('link', { name: 'Add a method' }).click();
  await page.getByRole('button', { name: 'By text message (SMS)' }).click();
  await expect(page).toHaveURL(/\/setup-mfa\/phone$/);
  await proveDestination(page, 'Phone number', '0470 12 12 12', noah.phone);
  await expect(page.getByTestId('mfa-edit')).toContainText('Phone');

  // The email goes, and comes back.
  await page.getByRole('button', { name: /^Delete: Email/ }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Yes, delete it' }).click();
  await expect(page.getByRole('status')).toHaveText('The method was deleted.');
  await expect(page.getByTestId('mfa-edit')).not.toContainText('Email to');
  await page.getByRole('link', { name: 'Add a method' }).click();
  await page.getByRole('button', { name: 'By email' }).click();
  await proveDestination(page, 'Email address', noah.email, noah.email);
  await expect(page.getByTestId('mfa-edit')).toContainText('Email to n***@example.be');
  await page.screenshot({ path: 'test-results/screens/security-methods-375.png', fullPage: true });
});

test("a reload on a step-up's code screen asks for the second factor again, then opens the screen it was for", async ({
  page,
}) => {
  // Kato's card is his second factor: no code is sent, so no wait comes between two tries.
  const kato = DEMO_MFA_USERS.find((u) => u.key === 'card')!;
  await signIn(page, kato.email);
  await page.getByRole('button', { name: 'Use my card' }).click();
  await page.getByLabel('Trust this device: do not ask again on it').check();
  await page.getByLabel('Card number').fill(KATO_CARD);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Kato');
  await page.getByRole('link', { name: 'Log out' }).click();
  await signIn(page, kato.email);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Kato');

  await page.goto('/security/mfa-edit');
  await expect(page).toHaveURL(/\/mfa\/methods\?single=true&redirect=%2Fsecurity%2Fmfa-edit$/);
  await page.getByRole('button', { name: 'Use my card' }).click();
  await expect(page.getByLabel('Card number')).toBeVisible();
  // The code screen keeps the way back; a reload asks again rather than dropping it.
  await expect(page).toHaveURL(/\/mfa\?single=true&redirect=%2Fsecurity%2Fmfa-edit$/);
  await page.reload();
  await expect(page).toHaveURL(/\/mfa\/methods\?single=true&redirect=%2Fsecurity%2Fmfa-edit$/);
  await page.getByRole('button', { name: 'Use my card' }).click();
  await page.getByLabel('Card number').fill(KATO_CARD);
  await expect(page).toHaveURL(/\/security\/mfa-edit$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Verification methods');
});
