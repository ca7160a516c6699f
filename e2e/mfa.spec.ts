import { expect, test, type Locator, type Page } from '@playwright/test';
import { TOTP } from 'otpauth';
import { E2E_PORT } from '../playwright.config.ts';
import { DEMO_MFA_USERS, DEMO_TOTP_SECRET } from '../server/seed/demo.ts';
import { DEMO_PASSWORD, codeSentTo, expectNoAxeViolations, sentCount, signIn, signInWithEmailCode } from './support.ts';

test.use({ locale: 'en-GB' });
// One mailbox and one phone per demo user: these tests take turns. The last two leave a code
// unused, so the server's resend wait applies to the next sign-in on that method for 30 s.
test.describe.configure({ mode: 'serial' });

const mila = DEMO_MFA_USERS.find((u) => u.key === 'mfa')!;
const tom = DEMO_MFA_USERS.find((u) => u.key === 'totp')!;
const sara = DEMO_MFA_USERS.find((u) => u.key === 'secure')!;

async function enterCode(page: Page, code: string) {
  await page.getByLabel(/Security code|Recovery key/).fill(code);
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

test('a wrong password or code brings focus back to its field, a new code says it went, and the code it replaced reads as replaced (375 px)', async ({
  page,
}) => {
  test.slow(); // the server's 30 s wait before a new code is real
  await page.setViewportSize({ width: 375, height: 740 });
  const selection = (field: Locator) =>
    field.evaluate((input: HTMLInputElement) => [input.selectionStart, input.selectionEnd, input.value.length]);
  await signIn(page, mila.email, 'not-her-password-1');
  await expect(page.getByRole('alert')).toHaveText('Invalid username/password.');
  const password = page.getByLabel('Password', { exact: true });
  await expect(password).toBeFocused();
  await password.fill(DEMO_PASSWORD);
  await password.press('Enter');

  const before = await sentCount(mila.email);
  await page.getByRole('button', { name: /Email a code/ }).click();
  const field = page.getByLabel('Security code');
  const first = await codeSentTo(mila.email, before);
  // A whole wrong code goes by itself: the field keeps focus, and what it holds is selected.
  await field.fill(first === '00000000' ? '11111111' : '00000000');
  await expect(page.getByRole('alert')).toHaveText('Your code is invalid, try again.');
  await expect(field).toBeFocused();
  expect(await selection(field)).toEqual([0, 9, 9]);

  const resend = page.getByRole('button', { name: 'Send a new code', exact: true });
  await expect(resend).toBeEnabled({ timeout: 35_000 });
  await resend.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: 'We sent a new code to m***@example.be.' })).toHaveText(
    'We sent a new code to m***@example.be. The one before no longer works.',
  );
  await expect(field).toBeFocused();
  await expect(field).toHaveValue('');
  // The first code, typed now, was replaced by the new one: said so, not "invalid".
  await field.fill(first);
  await expect(page.getByRole('alert')).toHaveText(
    'This code was replaced by a newer one. Type the last code we sent.',
  );
  await expect(field).toBeFocused();
  expect(await selection(field)).toEqual([0, 9, 9]);
  await expectNoAxeViolations(page);
  await page.keyboard.type(await codeSentTo(mila.email, before + 1));
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
  // Typing again clears it.
  await page.getByLabel('Security code').fill('1');
  await expect(page.getByRole('alert')).toHaveCount(0);
});

/** Pastes `text` into `field` as the clipboard would. */
async function paste(field: Locator, text: string) {
  await field.focus();
  await field.evaluate((input, pasted) => {
    const data = new DataTransfer();
    data.setData('text/plain', pasted);
    input.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  }, text);
}

test('a whole code goes by itself, pasted with a dash; Confirm waits, busy, and cannot be pressed twice; a short one confirmed with Enter is said to be (375 px)', async ({
  page,
}) => {
  await page.setViewportSize({ width: 375, height: 740 });
  const before = await sentCount(mila.email);
  // The code's sending, then its check, are held until the test lets them go.
  const checked: string[] = [];
  let [send, check] = [() => {}, () => {}];
  const sending = new Promise<void>((resolve) => (send = resolve));
  const checking = new Promise<void>((resolve) => (check = resolve));
  await page.route(
    (url) => url.pathname === '/api/mfa/sudo',
    async (route) => {
      if (route.request().method() === 'POST') {
        checked.push((route.request().postDataJSON() as { code: string }).code);
        await checking;
      } else await sending;
      return route.fallback();
    },
  );
  // Asked for less motion: what waits says so without spinning.
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await signIn(page, mila.email);
  // The method chosen waits, busy, while its code goes; no other can be chosen meanwhile.
  const chosen = page.getByRole('button', { name: /Email a code/ });
  await chosen.click();
  await expect(chosen).toHaveAttribute('aria-busy', 'true');
  await expect(chosen.getByTestId('button-spinner')).toBeVisible();
  expect(await page.evaluate(() => document.getAnimations().length)).toBe(0);
  await expect(page.getByRole('button', { name: /Text a code/ })).toBeDisabled();
  send();
  const field = page.getByLabel('Security code');
  await field.fill('1234');
  await field.press('Enter');
  await expect(page.getByRole('alert')).toHaveText('This code is too short. Please type the whole code.');
  await field.fill('12');
  await expect(page.getByRole('alert')).toHaveCount(0);

  const code = await codeSentTo(mila.email, before);
  // Pasted over what was typed: the whole code takes the field, and goes.
  await paste(field, ` ${code.slice(0, 4)}-${code.slice(4)} `);
  await expect(field).toHaveValue(`${code.slice(0, 4)} ${code.slice(4)}`);
  const confirm = page.getByRole('button', { name: 'Confirm' });
  await expect(confirm).toHaveAttribute('aria-busy', 'true');
  await expect(confirm).toBeDisabled();
  await expect(confirm.getByTestId('button-spinner')).toBeVisible();
  await expectNoAxeViolations(page);
  await confirm.click({ force: true });
  await field.press('Enter');
  check();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Mila');
  expect(checked).toEqual([code]);
});

test("an SMS's code read by the browser (WebOTP) fills the field and goes; leaving the screen stops listening (1280 px)", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  // Desktop Chromium receives no SMS: WebOTP as a phone's browser offers it, answering what the test delivers.
  await page.addInitScript(() => {
    type Listening = { transport: unknown; aborted: boolean; deliver: (code: string) => void };
    const w = window as unknown as { OTPCredential: unknown; listening: Listening[] };
    w.OTPCredential = class OTPCredential {};
    w.listening = [];
    // Only WebOTP's requests: the sign-in's passkey suggestions go to the browser as they are.
    const get = navigator.credentials.get.bind(navigator.credentials);
    navigator.credentials.get = (options?: CredentialRequestOptions & { otp?: { transport: string[] } }) =>
      !options?.otp
        ? get(options)
        : new Promise((resolve) => {
            const request: Listening = {
              transport: options?.otp?.transport,
              aborted: false,
              deliver: (code) => resolve({ id: '', type: 'otp', code } as unknown as Credential),
            };
            options?.signal?.addEventListener('abort', () => (request.aborted = true));
            w.listening.push(request);
          });
  });
  const listening = () =>
    page.evaluate(() =>
      (window as unknown as { listening: Array<{ transport: unknown; aborted: boolean }> }).listening.map(
        ({ transport, aborted }) => ({ transport, aborted }),
      ),
    );
  const before = await sentCount(sara.phone);
  await signIn(page, sara.email);
  await page.getByRole('button', { name: /Text a code/ }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Check your text messages');
  await expect.poll(listening).toEqual([{ transport: ['sms'], aborted: false }]);
  const code = await codeSentTo(sara.phone, before);
  await page.evaluate(
    (delivered) =>
      (window as unknown as { listening: Array<{ deliver: (code: string) => void }> }).listening[0]!.deliver(delivered),
    code,
  );
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Sara');
  // The screen is gone, and its request with it.
  expect(await listening()).toEqual([{ transport: ['sms'], aborted: true }]);
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
  test.slow(); // two browsers, two sign-ins and an axe check
  await signIn(page, tom.email);
  // An app and keys are no code to receive: the chooser asks how to confirm, not how to receive.
  await expect(page.getByText("Choose how to confirm it's you.")).toBeVisible();
  // The header says the sign-in is under way, with the way back, not "Log in / Register".
  const header = page.getByRole('banner');
  await expect(header.getByRole('link', { name: 'Register' })).toHaveCount(0);
  await expect(header.getByRole('link', { name: 'Back to sign-in' })).toBeVisible();
  await page.getByRole('button', { name: 'Use my authenticator app' }).click();
  await expect(page.getByRole('button', { name: /Send a new code/ })).toHaveCount(0);
  // A password manager that holds the app's secret may fill it.
  await expect(page.getByLabel('Security code')).toHaveAttribute('autocomplete', 'one-time-code');
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
  // It says why the person is here, and what each way on is for.
  await expect(other.getByTestId('recovery-why')).toHaveText(
    'You signed in with a recovery key, so your authenticator app may not be at hand. Each key works only once. If you lost your phone or the app, reset the app now; you can also make new keys, or continue.',
  );
  await expectNoAxeViolations(other);
  // A reload resumes the screen by the method it carries, the count read again from the server.
  await other.reload();
  await expect(other).toHaveURL(/\/mfa\/totp-recovery\?mfaId=\d+$/);
  await expect(other.getByTestId('keys-left')).toHaveText('Unused recovery keys: 9');
  // While the new keys are made, the button waits, busy, and no other way on can be taken.
  let regenerate = () => {};
  const regenerated = new Promise<void>((resolve) => (regenerate = resolve));
  let calls = 0;
  await other.route('**/api/mfa/regenerate-recovery', async (route) => {
    calls++;
    await regenerated;
    return route.fallback();
  });
  const generate = other.getByRole('button', { name: 'Generate new keys' });
  await generate.click();
  await expect(generate).toHaveAttribute('aria-busy', 'true');
  await expect(generate.getByTestId('button-spinner')).toBeVisible();
  await expect(other.getByRole('button', { name: 'Reset my authenticator app' })).toBeDisabled();
  await expect(other.getByRole('button', { name: 'Continue' })).toBeDisabled();
  await generate.click({ force: true });
  regenerate();
  // The new keys show on the authenticator's success page (spec §4 "TOTP recovery").
  await expect(other).toHaveURL(/\/setup-totp\/success\?isRegenerated=true$/);
  await expect(other.getByRole('heading', { level: 1 })).toHaveText('Your new recovery keys');
  await expect(other.getByTestId('recovery-keys').getByRole('listitem')).toHaveCount(10);
  expect(calls).toBe(1);
  const newKeys = await other.getByTestId('recovery-keys').getByRole('listitem').allTextContents();
  await other.getByRole('button', { name: 'I have saved them' }).click();
  await expect(other.getByRole('heading', { level: 1 })).toHaveText('Hello, Tom');
  await context.close();

  // Resetting the authenticator after a recovery key goes on to setting up a new one. The delete is
  // answered here, so Tom keeps his app for the tests after this one.
  const third = await browser.newContext({ locale: 'en-GB', baseURL: `http://account.localhost:${E2E_PORT}` });
  const resetter = await third.newPage();
  let deletes = 0;
  await resetter.route(/\/api\/mfa\/\d+$/, async (route) => {
    if (route.request().method() !== 'DELETE') return route.fallback();
    deletes++;
    return route.fulfill({ status: 204 });
  });
  await signIn(resetter, tom.email);
  await resetter.getByRole('button', { name: 'Use a recovery key' }).click();
  await enterCode(resetter, newKeys[0]!.trim().replace('-', ''));
  await expect(resetter).toHaveURL(/\/mfa\/totp-recovery\?mfaId=\d+$/);
  await resetter.getByRole('button', { name: 'Reset my authenticator app' }).click();
  await expect(resetter).toHaveURL(/\/setup-mfa\/totp\?reset=true$/);
  await expect(resetter.getByRole('heading', { level: 1 })).toHaveText('Set up your authenticator app again');
  await expect(resetter.getByText('Your old authenticator app and recovery keys no longer work')).toBeVisible();
  await expect(resetter.getByRole('img', { name: 'QR code to add Tessera to your authenticator app' })).toBeVisible();
  expect(deletes).toBe(1);
  await resetter.screenshot({ path: 'test-reports/screens/authenticator-reset.png', fullPage: true });
  await third.close();
});

test("the code screen's back link returns to sign-in, and the sign-in it left waits no more (spec §2)", async ({
  page,
}) => {
  await signIn(page, tom.email);
  await page.getByRole('button', { name: 'Use my authenticator app' }).click();
  await expect(page).toHaveURL(/\/mfa$/);
  await page.getByRole('main').getByRole('link', { name: 'Back to sign-in' }).click();
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
  // Which card: its last four digits, on the choice and on the screen.
  await page.getByRole('button', { name: 'Use my card ending in 0001', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Confirm with your card');
  await expect(page.getByText('Enter the number of your card ending in 0001.')).toBeVisible();
  // A card has no sent code: no countdown, no resend; a well-formed wrong number does not match the
  // card (it is not "invalid").
  await expect(page.getByText(/The code expires/)).toHaveCount(0);
  await page.getByLabel('Card number').fill('5065 0000 0000 0099');
  await expect(page.getByRole('alert')).toHaveText('This number does not match the card on your account.');
  await page.getByLabel('Card number').fill('5065 0000 0000 0001');
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
  // How many are left, as the recovery screen after a sign-in says it.
  await expect(page.getByTestId('keys-left')).toHaveText(/^Unused recovery keys: \d+$/);
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
  await expect(page.getByTestId('keys-left')).toHaveText('Unused recovery keys: 10');
});

// Last in this file: it leaves Mila's email with a code waiting.
test('choosing again a method whose code was just sent says how long until a new one, counting down, at 375 px', async ({
  page,
}) => {
  test.slow();
  await page.setViewportSize({ width: 375, height: 740 });
  await signIn(page, mila.email);
  await page.getByRole('button', { name: /Email a code/ }).click();
  // The tests before may have left a code sent some time ago: its wait may end while this test runs,
  // so the test waits it out and sends its own, then Back returns to the choice.
  const wait = page.getByRole('status').filter({ hasText: 'A code was sent moments ago' });
  await expect(page.getByLabel('Security code').or(wait)).toBeVisible();
  if (await wait.isVisible()) {
    await expect(wait).toHaveCount(0, { timeout: 45_000 });
    await page.getByRole('button', { name: /Email a code/ }).click();
  }
  await expect(page.getByLabel('Security code')).toBeVisible();
  await page.goBack();
  await expect(page).toHaveURL(/\/mfa\/methods$/);
  await page.getByRole('button', { name: /Email a code/ }).click();
  await expect(wait).toHaveText(/you can ask for a new one in 0:[0-3]\d\.$/);
  const first = await wait.textContent();
  // It counts down: the next second says less, or (caught at its last second) the wait is over.
  await expect(page.getByRole('status').filter({ hasText: first! })).toHaveCount(0);
  await expectNoAxeViolations(page);
  // Chosen again from the keyboard: while it asks, and once told to wait, focus stays on the method.
  const email = page.getByRole('button', { name: /Email a code/ });
  await email.focus();
  await page.keyboard.press('Enter');
  await expect(wait).toHaveText(/you can ask for a new one in 0:[0-3]\d\.$/);
  await expect(email).toBeFocused();
});
