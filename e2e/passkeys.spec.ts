// Passkeys as a second factor, with Chromium's virtual authenticator (the DevTools protocol's
// WebAuthn domain, no stub): Pieter adds one from Security and names it, signs in with it (trusting
// the device), proves it is him with it before a sensitive screen, renames it and deletes it; the
// authenticator that holds one already is refused a second; a passkey the authenticator no longer
// has is said so, and another try or another method goes on. Axe and screenshots at 375 and 1280 px.
// Each test deletes the passkeys it added, so Pieter is left with his email code only, as seeded.
import { expect, test, type Page } from '@playwright/test';
import { DEMO_MFA_USERS, DEMO_PASSWORD } from '../server/seed/demo.ts';
import { presence, virtualAuthenticator } from './passkeyKit.ts';
import { expectNoAxeViolations, signIn, signInWithEmailCode, user } from './support.ts';

test.use({ locale: 'en-GB' });
// One persona: its tests one after the other.
test.describe.configure({ mode: 'serial' });

const pieter = DEMO_MFA_USERS.find((u) => u.key === 'passkey')!;
const emma = user('cardholder');

/** Pieter's authenticator answers by itself unless a test turns its presence off. */
const authenticatorOf = (page: Page, transport?: 'internal' | 'usb') =>
  virtualAuthenticator(page, { presence: true, ...(transport ? { transport } : {}) });

async function shot(page: Page, name: string, width: number) {
  await page.screenshot({ path: `test-results/screens/passkey-${name}-${width}.png`, fullPage: true });
}

const heading = (page: Page) => page.getByRole('heading', { level: 1 });

/** From the dashboard, just signed in: Security's methods, the set-up's passkey, made and named. */
async function addPasskey(page: Page, name: string, width?: number) {
  await page.getByRole('link', { name: 'Security' }).first().click();
  await page.getByRole('link', { name: 'Manage verification methods' }).click();
  // The sign-in's code is recent: the methods open at once.
  await expect(heading(page)).toHaveText('Verification methods');
  await page.getByRole('link', { name: 'Add a method' }).click();
  await page.getByRole('button', { name: 'With a passkey' }).click();
  await expect(page).toHaveURL(/\/setup-mfa\/passkey$/);
  await expect(heading(page)).toHaveText('Add a passkey');
  if (width) {
    await expectNoAxeViolations(page);
    await shot(page, 'add', width);
  }
  await page.getByRole('button', { name: 'Create a passkey' }).click();
  await expect(page).toHaveURL(/\/setup-mfa\/passkey-name$/);
  // Chromium's authenticator is no provider the server knows: the name starts empty.
  const field = page.getByLabel('Name of the passkey (optional)');
  await expect(field).toHaveValue('');
  await expect(field).toBeFocused();
  if (width) {
    await expectNoAxeViolations(page);
    await shot(page, 'name', width);
  }
  await field.fill(name);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page).toHaveURL(/\/security\/mfa-edit$/);
  await expect(page.getByTestId('save-notice')).toHaveText('Your new second factor is on.');
}

/** Deletes the passkey named so, after the question, from the methods screen. */
async function deletePasskey(page: Page, name: string, width?: number) {
  await page.getByRole('button', { name: `Delete: Passkey: ${name}` }).click();
  const question = page.getByRole('alertdialog');
  await expect(question.getByRole('heading')).toHaveText(`Delete Passkey: ${name}?`);
  await expect(question).toContainText('Also remove it from the device or password manager that keeps it.');
  if (width) {
    await expectNoAxeViolations(page);
    await shot(page, 'delete', width);
  }
  await question.getByRole('button', { name: 'Yes, delete it' }).click();
  await expect(page.getByTestId('save-notice')).toHaveText('The method was deleted.');
  await expect(page.getByTestId('mfa-edit')).not.toContainText(name);
}

async function logOut(page: Page) {
  await page.getByRole('link', { name: 'Log out' }).first().click();
  await expect(page).toHaveURL(/\/login\/email$/);
}

for (const width of [375, 1280]) {
  test(`a passkey is added from Security, signs in, proves it is him before a sensitive screen, is renamed and deleted (${width} px)`, async ({
    page,
  }) => {
    test.setTimeout(180_000);
    await page.setViewportSize({ width, height: 900 });
    const name = `Laptop ${width}`;
    await signInWithEmailCode(page, pieter.email, 'Pieter');
    const authenticator = await authenticatorOf(page);
    const { cdp, authenticatorId } = authenticator;
    await addPasskey(page, name, width);

    // Listed with what its owner needs to tell it apart.
    const item = page.getByTestId('mfa-edit').getByRole('listitem').filter({ hasText: name });
    await expect(item).toContainText(`Passkey: ${name}`);
    await expect(item).toContainText('On this device only');
    await expect(item).toContainText(/Added on \d{1,2} \w+ \d{4}/);
    await expect(item).toContainText('Never used');
    await expectNoAxeViolations(page);
    await shot(page, 'security', width);

    // The authenticator holds one of the account's passkeys already: a second is refused, saying so,
    // and Back is the way to another kind.
    await page.getByRole('link', { name: 'Add a method' }).click();
    await page.getByRole('button', { name: 'With a passkey' }).click();
    await page.getByRole('button', { name: 'Create a passkey' }).click();
    await expect(page.getByRole('alert')).toHaveText(
      'This device or password manager already keeps a passkey for your account. Use another one, or keep the passkey you have.',
    );
    await expect(page.getByRole('button', { name: 'Create a passkey' })).not.toHaveAttribute('aria-busy');
    await expectNoAxeViolations(page);
    await shot(page, 'exists', width);
    await page.getByRole('button', { name: 'Back' }).click();
    await expect(page).toHaveURL(/\/setup-mfa\/selection$/);
    expect((await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials).toHaveLength(1);

    // Signing in: the passkey by its name beside the email code, the device trusted first.
    await page.goto('/user/dashboard');
    await presence(authenticator, false);
    await logOut(page);
    await signIn(page, pieter.email);
    await expect(heading(page)).toHaveText("Verify it's you");
    await expect(page.getByRole('main').getByRole('listitem')).toHaveText([
      /^Email a code to /,
      `Use my passkey: ${name}`,
    ]);
    await expectNoAxeViolations(page);
    await shot(page, 'sign-in', width);
    await page.getByLabel('Trust this device: do not ask again on it').check();
    await presence(authenticator, true);
    await page.getByRole('button', { name: `Use my passkey: ${name}` }).click();
    await expect(heading(page)).toHaveText('Hello, Pieter');

    // Trusted: the next sign-in asks no second factor, so a sensitive screen does, and the passkey answers.
    await presence(authenticator, false);
    await logOut(page);
    await signIn(page, pieter.email);
    await expect(heading(page)).toHaveText('Hello, Pieter');
    await page.getByRole('link', { name: 'Security' }).first().click();
    await page.getByRole('link', { name: 'Change your password' }).click();
    await expect(page).toHaveURL(/\/mfa\/methods\?single=true&redirect=%2Fsecurity%2Fedit-password$/);
    // A step-up trusts no device: no such choice here.
    await expect(page.getByLabel('Trust this device: do not ask again on it')).toHaveCount(0);
    await expectNoAxeViolations(page);
    await shot(page, 'step-up', width);
    await presence(authenticator, true);
    await page.getByRole('button', { name: `Use my passkey: ${name}` }).click();
    await expect(page).toHaveURL(/\/security\/edit-password$/);
    await expect(heading(page)).toHaveText('Change your password');

    // Renamed in place: its current name to start from, 1 to 64 characters, Escape leaves it as it was.
    await page.goto('/security/mfa-edit');
    await expect(item).toContainText(/Last used on \d{1,2} \w+ \d{4}/);
    await page.getByRole('button', { name: `Rename: Passkey: ${name}` }).click();
    const field = page.getByLabel('Name of the passkey');
    await expect(field).toBeFocused();
    await expect(field).toHaveValue(name);
    await field.press('Escape');
    await expect(field).toHaveCount(0);
    await expect(page.getByRole('button', { name: `Rename: Passkey: ${name}` })).toBeFocused();
    await page.keyboard.press('Enter');
    await field.fill('   ');
    await field.press('Enter');
    await expect(page.getByRole('alert')).toHaveText('Enter a name for your passkey.');
    await expect(field).toHaveAttribute('maxlength', '64');
    await expectNoAxeViolations(page);
    await shot(page, 'rename', width);
    await field.fill(`Work laptop ${width}`);
    await page.getByRole('button', { name: 'Save the name' }).click();
    await expect(page.getByTestId('save-notice')).toHaveText('The passkey was renamed.');
    await expect(page.getByTestId('mfa-edit')).toContainText(`Work laptop ${width}`);
    // The overview names it so too.
    await page.getByRole('link', { name: 'Security settings' }).click();
    await expect(page.getByTestId('mfa-methods')).toContainText(`Passkey: Work laptop ${width}`);
    await page.getByRole('link', { name: 'Manage verification methods' }).click();
    await expect(heading(page)).toHaveText('Verification methods');

    await deletePasskey(page, `Work laptop ${width}`, width);
    await shot(page, 'deleted', width);
  });
}

test('a passkey the authenticator no longer holds is said so; another try, or the email code, goes on (375 px)', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 375, height: 812 });
  await signInWithEmailCode(page, pieter.email, 'Pieter');
  const authenticator = await authenticatorOf(page);
  const { cdp, authenticatorId } = authenticator;
  await addPasskey(page, 'Phone');
  await presence(authenticator, false);
  await logOut(page);

  // The authenticator loses the passkey (as when the person cancels, or picks none): the browser refuses.
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  expect(credentials).toHaveLength(1);
  await cdp.send('WebAuthn.clearCredentials', { authenticatorId });
  await signIn(page, pieter.email);
  await presence(authenticator, true);
  const usePasskey = page.getByRole('button', { name: 'Use my passkey: Phone' });
  await usePasskey.click();
  await expect(page.getByRole('alert')).toHaveText(
    'The passkey was not used: the request was cancelled or timed out. Try again, or choose another way.',
  );
  // No spinner left, the choice still there, the button pressed still focused for another try.
  await expect(usePasskey).not.toHaveAttribute('aria-busy');
  await expect(page.getByRole('status')).toHaveCount(0);
  await expect(page.getByRole('button', { name: /Email a code/ })).toBeEnabled();
  await expectNoAxeViolations(page);
  await shot(page, 'cancelled', 375);

  // The passkey back on the authenticator: the same choice again signs in.
  await cdp.send('WebAuthn.addCredential', { authenticatorId, credential: credentials[0]! });
  await usePasskey.click();
  await expect(heading(page)).toHaveText('Hello, Pieter');

  // Left as found: the email code only.
  await page.goto('/security/mfa-edit');
  await deletePasskey(page, 'Phone');
});

for (const width of [375, 1280]) {
  test(`a passkey alone signs in, by its button and from the address field's suggestions, with no password and no code (${width} px)`, async ({
    page,
  }) => {
    test.setTimeout(180_000);
    await page.setViewportSize({ width, height: 900 });
    await signInWithEmailCode(page, pieter.email, 'Pieter');
    const authenticator = await authenticatorOf(page);
    await addPasskey(page, `Sign-in ${width}`);
    await presence(authenticator, false);
    await logOut(page);

    // The address field offers passkeys among its suggestions; the button asks the browser's dialog.
    await expect(page.getByLabel('Email address')).toHaveAttribute('autocomplete', 'username webauthn');
    const button = page.getByRole('button', { name: 'Sign in with a passkey' });
    await expect(button).toBeVisible();
    await expectNoAxeViolations(page);
    await shot(page, 'login', width);
    await presence(authenticator, true);
    await button.click();
    await expect(heading(page)).toHaveText('Hello, Pieter');
    // Both factors at once: no code was asked, and the dashboard offers no passkey (he has one).
    await expect(page.getByRole('heading', { name: 'Sign in faster with a passkey' })).toHaveCount(0);

    // The suggestions: the person picks the passkey in the address field (Chromium's authenticator
    // picks it as soon as it is offered), and is signed in.
    const signedIn = page.waitForResponse((r) => r.url().endsWith('/api/passkey/sign-in') && r.status() === 200);
    await page.getByRole('link', { name: 'Log out' }).first().click();
    await signedIn;
    await expect(heading(page)).toHaveText('Hello, Pieter');
    await expect(page).toHaveURL(/\/user\/dashboard$/);

    await page.goto('/security/mfa-edit');
    await deletePasskey(page, `Sign-in ${width}`);
  });
}

test('a security key that cannot verify its user never signs in alone, but serves as a second factor after the password (375 px)', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 375, height: 812 });
  // How the browser's requests for a passkey end, seen from the page.
  await page.addInitScript(() => {
    const ended: string[] = [];
    (window as unknown as { passkeyRequests: string[] }).passkeyRequests = ended;
    const get = navigator.credentials.get.bind(navigator.credentials);
    navigator.credentials.get = (options?: CredentialRequestOptions) =>
      get(options).then(
        (credential) => (ended.push(`${options?.mediation ?? 'button'}: signed`), credential),
        (error: Error) => {
          ended.push(`${options?.mediation ?? 'button'}: ${error.name}`);
          throw error;
        },
      );
  });
  const requests = () => page.evaluate(() => (window as unknown as { passkeyRequests: string[] }).passkeyRequests);
  await signInWithEmailCode(page, pieter.email, 'Pieter');
  // A security key made it while it verified him; then it is held by a key that cannot (no PIN, no
  // fingerprint). Both are USB keys: the second-factor request names the transports it was made on.
  const made = await authenticatorOf(page, 'usb');
  await addPasskey(page, 'Key');
  const [held] = (await made.cdp.send('WebAuthn.getCredentials', { authenticatorId: made.authenticatorId }))
    .credentials;
  await made.cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: made.authenticatorId });
  const { authenticatorId } = await made.cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'usb',
      hasResidentKey: true,
      hasUserVerification: false,
      automaticPresenceSimulation: false,
    },
  });
  const key = { cdp: made.cdp, authenticatorId };
  await key.cdp.send('WebAuthn.addCredential', { authenticatorId, credential: held! });
  const signIns: number[] = [];
  page.on('response', (r) => {
    if (r.url().endsWith('/api/passkey/sign-in')) signIns.push(r.status());
  });
  await logOut(page);

  // Alone, by the button or the suggestions, it signs nobody in: the sign-in asks for a verified user.
  await presence(key, true);
  const button = page.getByRole('button', { name: 'Sign in with a passkey' });
  await button.click();
  await expect.poll(requests).toContain('button: NotAllowedError');
  await expect(button).not.toHaveAttribute('aria-busy');
  await expect(heading(page)).toHaveText('Sign in to your Tessera account');
  await expect(page).toHaveURL(/\/login\/email$/);
  expect(signIns.filter((status) => status === 200)).toEqual([]);
  await shot(page, 'unverified-refused', 375);

  // After the password, the same key is his second factor.
  await page.getByLabel('Email address').fill(pieter.email);
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('button', { name: 'Use my passkey: Key' }).click();
  await expect(heading(page)).toHaveText('Hello, Pieter');

  await page.goto('/security/mfa-edit');
  await deletePasskey(page, 'Key');
});

test('right after a password sign-in, the password manager is asked for a passkey quietly, and the request ends as the dashboard is left (1280 px)', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  // What the app asks of the browser, seen from the page: Chromium's authenticator never settles a
  // conditional create, so the request is only seen made and ended.
  await page.addInitScript(() => {
    const asked: { mediation?: string; aborted: boolean }[] = [];
    (window as unknown as { passkeyCreates: typeof asked }).passkeyCreates = asked;
    const create = navigator.credentials.create.bind(navigator.credentials);
    navigator.credentials.create = (options?: CredentialCreationOptions) => {
      const call = { mediation: (options as { mediation?: string } | undefined)?.mediation, aborted: false };
      asked.push(call);
      options?.signal?.addEventListener('abort', () => (call.aborted = true));
      return create(options);
    };
  });
  await authenticatorOf(page);
  // Emma signs in with her password alone (Pieter's codes are spent by the other tests).
  await signIn(page, emma.email);
  // She has several platforms: the chooser first, then her account.
  await page.getByRole('link', { name: 'Go to my account' }).click();
  await expect(heading(page)).toHaveText(`Hello, ${emma.firstname}`);
  const creates = () => page.evaluate(() => (window as unknown as { passkeyCreates: unknown[] }).passkeyCreates);
  await expect.poll(creates).toEqual([{ mediation: 'conditional', aborted: false }]);
  // Quiet: no offer shows while the password manager decides.
  await expect(page.getByRole('heading', { name: 'Sign in faster with a passkey' })).toHaveCount(0);
  // Leaving the dashboard (within the app, so the page keeps its record) ends the request.
  await page.getByRole('link', { name: 'Profile' }).first().click();
  await expect(heading(page)).toHaveText('Profile');
  await expect.poll(creates).toEqual([{ mediation: 'conditional', aborted: true }]);
});

test('where the browser cannot make one quietly, a passkey is offered once after a password sign-in: added, or "not now" for good (375 px)', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 375, height: 812 });
  // This browser reports no conditional create.
  await page.addInitScript(() => {
    const capabilities = PublicKeyCredential.getClientCapabilities.bind(PublicKeyCredential);
    PublicKeyCredential.getClientCapabilities = async () => ({ ...(await capabilities()), conditionalCreate: false });
  });
  const authenticator = await authenticatorOf(page);
  await signInWithEmailCode(page, pieter.email, 'Pieter');
  const offer = page.getByRole('region', { name: 'Sign in faster with a passkey' });
  await expect(offer).toBeVisible();
  await expectNoAxeViolations(page);
  await shot(page, 'offer', 375);
  await offer.getByRole('button', { name: 'Add a passkey' }).click();
  await expect(page.getByText('A passkey was added to your account: next time, sign in with it.')).toBeVisible();
  await expect(offer).toHaveCount(0);
  await expectNoAxeViolations(page);
  await shot(page, 'offer-made', 375);
  await page.getByRole('link', { name: 'Name it in Security' }).click();
  await expect(page).toHaveURL(/\/security\/mfa-edit$/);
  await expect(page.getByTestId('mfa-edit')).toContainText('Passkey');
  await page.getByRole('button', { name: /^Delete: Passkey/ }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Yes, delete it' }).click();
  await expect(page.getByTestId('save-notice')).toHaveText('The method was deleted.');

  // Without a passkey again: offered at the next password sign-in, where "not now" is kept for good.
  await presence(authenticator, false);
  await logOut(page);
  await signInWithEmailCode(page, pieter.email, 'Pieter');
  await offer.getByRole('button', { name: 'Not now' }).click();
  await expect(offer).toHaveCount(0);
  await logOut(page);
  await signInWithEmailCode(page, pieter.email, 'Pieter');
  await expect(page.getByRole('heading', { name: 'Hello, Pieter' })).toBeVisible();
  await expect(offer).toHaveCount(0);
});

test('a passkey deleted here is dropped by the password manager too, and one it still offers is refused and reported (1280 px)', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  // What the app tells the password manager, seen from the page (WebAuthn's Signal API).
  await page.addInitScript(() => {
    const told: { call: string; options: unknown }[] = [];
    (window as unknown as { passkeySignals: typeof told }).passkeySignals = told;
    for (const call of ['signalAllAcceptedCredentials', 'signalUnknownCredential', 'signalCurrentUserDetails']) {
      const api = PublicKeyCredential as unknown as Record<string, (options: unknown) => Promise<void>>;
      const original = api[call]!.bind(PublicKeyCredential);
      api[call] = (options: unknown) => {
        told.push({ call, options });
        return original(options);
      };
    }
  });
  const signals = () =>
    page.evaluate(() => (window as unknown as { passkeySignals: { call: string; options: unknown }[] }).passkeySignals);
  await signInWithEmailCode(page, pieter.email, 'Pieter');
  const authenticator = await authenticatorOf(page);
  await addPasskey(page, 'Old phone');
  const [held] = (
    await authenticator.cdp.send('WebAuthn.getCredentials', { authenticatorId: authenticator.authenticatorId })
  ).credentials;
  const credentialId = Buffer.from(held!.credentialId, 'base64').toString('base64url');

  // A new name: the password manager shows it beside the passkey. Then the old one again.
  const rename = async (firstname: string) => {
    await page.getByRole('link', { name: 'Profile' }).first().click();
    await page.getByRole('region', { name: 'Personal information' }).getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('First name').fill(firstname);
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Your personal information has been saved.')).toBeVisible();
  };
  await rename('Pieter-Jan');
  await expect.poll(signals).toContainEqual({
    call: 'signalCurrentUserDetails',
    options: {
      rpId: 'account.localhost',
      userId: expect.any(String),
      name: pieter.email,
      displayName: 'Pieter-Jan Peeters',
    },
  });
  await rename('Pieter');
  await page.goto('/security/mfa-edit');
  await deletePasskey(page, 'Old phone');
  await expect.poll(signals).toContainEqual({
    call: 'signalAllAcceptedCredentials',
    options: { rpId: 'account.localhost', userId: expect.any(String), allAcceptedCredentialIds: [] },
  });

  // A password manager that kept it anyway: picked in the suggestions, it is refused, said so, and reported.
  await authenticator.cdp.send('WebAuthn.addCredential', {
    authenticatorId: authenticator.authenticatorId,
    credential: held!,
  });
  const refused = page.waitForResponse((r) => r.url().endsWith('/api/passkey/sign-in') && r.status() === 422);
  await page.getByRole('link', { name: 'Log out' }).first().click();
  await refused;
  await presence(authenticator, false);
  await expect(page.getByRole('alert')).toHaveText(
    'This passkey is not known here any more. Sign in with your password, then add a new one.',
  );
  await expect(page).toHaveURL(/\/login\/email$/);
  await expectNoAxeViolations(page);
  await shot(page, 'unknown', 1280);
  await expect
    .poll(signals)
    .toContainEqual({ call: 'signalUnknownCredential', options: { rpId: 'account.localhost', credentialId } });
  // The password still signs in (to the second factor, whose code the other tests spend enough of).
  await signIn(page, pieter.email);
  await expect(heading(page)).toHaveText("Verify it's you");
});
