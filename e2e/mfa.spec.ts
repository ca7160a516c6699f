import { expect, test, type Page } from '@playwright/test';
import { TOTP } from 'otpauth';
import { E2E_PORT } from '../playwright.config.ts';
import { DEMO_MFA_USERS, DEMO_TOTP_SECRET } from '../server/seed/demo.ts';
import { codeSentTo, expectNoAxeViolations, sentCount, signIn, signInWithEmailCode } from './support.ts';

test.use({ locale: 'en-GB' });
// One mailbox and one phone per demo user: these tests take turns. The last two leave a code
// unused, so the server's resend wait applies to the next sign-in on that method for 30 s.
test.describe.configure({ mode: 'serial' });

const mila = DEMO_MFA_USERS.find((u) => u.key === 'mfa')!;
const tom = DEMO_MFA_USERS.find((u) => u.key === 'totp')!;

async function enterCode(page: Page, code: string) {
  await page.getByLabel(/Security code|Recovery key/).fill(code);
  await page.getByRole('button', { name: 'Confirm' }).click();
}

test('signs in with a code sent by email over SMTP', async ({ page }) => {
  const before = await sentCount(mila.email);
  await signIn(page, mila.email);
  await expect(page).toHaveURL(/\/mfa\/methods$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText("Verify it's you");
  await expectNoAxeViolations(page);
  await page.getByRole('button', { name: 'Email a code to m***@example.be' }).click();
  await expect(page).toHaveURL(/\/mfa$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Check your email');
  await expect(page.getByText('We sent an 8-digit code to m***@example.be.')).toBeVisible();
  await expect(page.getByText(/The code expires in 1[45]:\d\d\./)).toBeVisible();
  await expectNoAxeViolations(page);
  await enterCode(page, await codeSentTo(mila.email, before));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Mila');
});

test('signs in with a code received by WhatsApp through the provider', async ({ page }) => {
  const before = await sentCount(mila.phone);
  await signIn(page, mila.email);
  await page.getByRole('button', { name: /on WhatsApp/ }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Check WhatsApp');
  await enterCode(page, await codeSentTo(mila.phone, before));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Mila');
});

test('trusting the device skips the second factor next time', async ({ page }) => {
  const before = await sentCount(mila.email);
  await signIn(page, mila.email);
  await page.getByRole('button', { name: /Email a code/ }).click();
  await page.getByLabel('Trust this device: do not ask again on it').check();
  await enterCode(page, await codeSentTo(mila.email, before));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Mila');
  await page.getByRole('link', { name: 'Log out' }).click();
  await expect(page).toHaveURL(/\/login\/email$/);
  await signIn(page, mila.email);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Mila');
});

test('shows a wrong code until the user types again', async ({ page }) => {
  await signIn(page, mila.email);
  await page.getByRole('button', { name: /Text a code/ }).click();
  await enterCode(page, '00000000');
  await expect(page.getByRole('alert')).toHaveText('Your code is invalid, try again.');
  // A pasted code with any spacing is taken, and shows in groups.
  await page.getByLabel('Security code').fill(' 12 34-56 78 ');
  await expect(page.getByLabel('Security code')).toHaveValue('1234 5678');
  await page.getByLabel('Security code').fill('1');
  await expect(page.getByRole('alert')).toHaveCount(0);
});

test('runs the resend and expiry timers on the clock, and the server enforces the wait', async ({ page }) => {
  await page.clock.install();
  await signIn(page, mila.email);
  await page.getByRole('button', { name: /Email a code/ }).click();
  const resend = page.getByRole('button', { name: /Send a new code/ });
  await expect(resend).toBeDisabled();
  await expect(resend).toHaveText(/Send a new code in 0:(29|30)/);
  await page.clock.fastForward(31_000);
  await expect(resend).toBeEnabled();
  await page.clock.fastForward(870_000);
  await expect(page.getByText('The code has expired. Ask for a new one.')).toBeVisible();
  // The browser's clock ran ahead; the server's did not: it refuses the early resend.
  await resend.click();
  await expect(page.getByRole('alert')).toHaveText('Please wait before asking for a new code.');
});

test('authenticator code, then a recovery key leads to the recovery screen with the right count', async ({
  page,
  browser,
}) => {
  await signIn(page, tom.email);
  await page.getByRole('button', { name: 'Use my authenticator app' }).click();
  await expect(page.getByRole('button', { name: /Send a new code/ })).toHaveCount(0);
  await enterCode(page, new TOTP({ secret: DEMO_TOTP_SECRET, digits: 6, period: 30 }).generate());
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Tom');
  // Fresh keys through the API (this session passed MFA a moment ago).
  const keys = await page.evaluate(async () => {
    const res = await fetch('/api/mfa/regenerate-recovery', {
      method: 'POST',
      headers: { 'x-device-id': localStorage.getItem('device_id')! },
    });
    return ((await res.json()) as { recovery_keys: string[] }).recovery_keys;
  });
  expect(keys).toHaveLength(10);

  const context = await browser.newContext({ locale: 'en-GB', baseURL: `http://account.localhost:${E2E_PORT}` });
  const other = await context.newPage();
  await signIn(other, tom.email);
  await other.getByRole('button', { name: 'Use a recovery key' }).click();
  await enterCode(other, keys[0]!.replace('-', ''));
  // The recovery screen carries the method used (spec §4 "MFA", after a code, rule 1).
  await expect(other).toHaveURL(/\/mfa\/totp-recovery\?mfaId=\d+$/);
  await expect(other.getByTestId('keys-left')).toHaveText('Unused recovery keys: 9');
  await expectNoAxeViolations(other);
  // A reload resumes the screen by the method it carries, the count read again from the server.
  await other.reload();
  await expect(other).toHaveURL(/\/mfa\/totp-recovery\?mfaId=\d+$/);
  await expect(other.getByTestId('keys-left')).toHaveText('Unused recovery keys: 9');
  await other.getByRole('button', { name: 'Generate new keys' }).click();
  // The new keys show on the authenticator's success page (spec §4 "TOTP recovery").
  await expect(other).toHaveURL(/\/setup-totp\/success\?isRegenerated=true$/);
  await expect(other.getByRole('heading', { level: 1 })).toHaveText('Your new recovery keys');
  await expect(other.getByTestId('recovery-keys').getByRole('listitem')).toHaveCount(10);
  await other.getByRole('button', { name: 'I have saved them' }).click();
  await expect(other.getByRole('heading', { level: 1 })).toHaveText('Hello, Tom');
  await context.close();
});

test("the code screen's back link returns to sign-in, and the sign-in it left waits no more (spec §2)", async ({
  page,
}) => {
  await signIn(page, tom.email);
  await page.getByRole('button', { name: 'Use my authenticator app' }).click();
  await expect(page).toHaveURL(/\/mfa$/);
  await page.getByRole('link', { name: 'Back to sign-in' }).click();
  await expect(page).toHaveURL(/\/login\/email$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign in to your Tessera account');
  await page.goto('/mfa');
  await expect(page).toHaveURL(/\/login\/email$/);
});

test("the spec's query on mfa-methods is taken for what the session holds, never trusted (spec §2)", async ({
  page,
}) => {
  // No sign-in waits: isLogin names none, and the methods it lists are no one's.
  const forged = encodeURIComponent(JSON.stringify([{ id: 999, method: 'email', target: 'evil@example.com' }]));
  await page.goto(`/mfa/methods?isLogin=true&methods=${forged}`);
  await expect(page).toHaveURL(/\/login\/email$/);
  // A sign-in waits: the screen lists its own methods, whatever the query says.
  await signIn(page, tom.email);
  await expect(page).toHaveURL(/\/mfa\/methods$/);
  await page.goto(`/mfa/methods?isLogin=true&isFuzzion=true&methods=${forged}`);
  await expect(page.getByRole('button', { name: 'Use my authenticator app' })).toBeVisible();
  await expect(page.getByText('evil@example.com')).toHaveCount(0);
});

test('the second-factor screens cannot be opened without a pending sign-in', async ({ page }) => {
  await page.goto('/mfa');
  await expect(page).toHaveURL(/\/login\/email$/);
});

test('signs in with the number of a benefit card', async ({ page }) => {
  const kato = DEMO_MFA_USERS.find((u) => u.key === 'card')!;
  await signIn(page, kato.email);
  await page.getByRole('button', { name: 'Use my card' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Confirm with your card');
  // A card has no sent code: no countdown, no resend; a wrong number is called a card number.
  await expect(page.getByText(/The code expires/)).toHaveCount(0);
  await page.getByLabel('Card number').fill('5065 0000 0000 0099');
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByRole('alert')).toHaveText('Your card number is invalid.');
  await page.getByLabel('Card number').fill('5065 0000 0000 0001');
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Kato');
});

// After the recovery-key test above (this file runs in order): Tom's keys change only here.
test('new recovery keys from Security: asked first, then shown with ways to keep them until saved (375 px)', async ({
  page,
}) => {
  await page.setViewportSize({ width: 375, height: 740 });
  // By email: the authenticator's current code may have been used by the test above.
  await signInWithEmailCode(page, tom.email, 'Tom');
  await page.goto('/security/edit-recovery');
  await page.getByRole('button', { name: 'Generate new keys' }).click();
  const question = page.getByRole('alertdialog');
  await expect(question).toContainText('Your current recovery keys stop working at once');
  await question.getByRole('button', { name: 'No, keep it as it is' }).click();
  await expect(page.getByTestId('recovery-keys')).toHaveCount(0);
  await page.getByRole('button', { name: 'Generate new keys' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Yes, generate new keys' }).click();
  await expect(page.getByTestId('recovery-keys').getByRole('listitem')).toHaveCount(10);
  for (const name of ['Copy', 'Print']) await expect(page.getByRole('button', { name })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Download' })).toHaveAttribute('download', 'tessera-recovery-keys.txt');
  await expectNoAxeViolations(page);
  await page.getByRole('button', { name: 'I have saved them' }).click();
  await expect(page.getByTestId('recovery-keys')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Generate new keys' })).toBeVisible();
});

// Last in this file: it leaves Mila's email with a code waiting.
test('choosing again a method whose code was just sent says how long until a new one, counting down, at 375 px', async ({
  page,
}) => {
  await page.setViewportSize({ width: 375, height: 740 });
  await signIn(page, mila.email);
  await page.getByRole('button', { name: /Email a code/ }).click();
  // The tests before may have left a code just sent; otherwise this one is, and Back returns to the choice.
  const wait = page.getByRole('status').filter({ hasText: 'A code was sent moments ago' });
  await expect(page.getByLabel('Security code').or(wait)).toBeVisible();
  if (await page.getByLabel('Security code').isVisible()) {
    await page.goBack();
    await expect(page).toHaveURL(/\/mfa\/methods$/);
    await page.getByRole('button', { name: /Email a code/ }).click();
  }
  await expect(wait).toHaveText(/you can ask for a new one in 0:[0-3]\d\.$/);
  const first = await wait.textContent();
  // It counts down: the next second says less, or (caught at its last second) the wait is over.
  await expect(page.getByRole('status').filter({ hasText: first! })).toHaveCount(0);
  await expectNoAxeViolations(page);
});
