// Passkeys in the browser tests that run a server of their own: Chromium's virtual authenticator
// (the DevTools protocol's WebAuthn domain) and a passkey added from Security.
import { expect, type CDPSession, type Page } from '@playwright/test';
import { DEMO_PASSWORD } from '../server/seed/demo.ts';
import { codeIn, type Mail } from '../server/testing/peers.ts';

export type Authenticator = { cdp: CDPSession; authenticatorId: string };

/** A platform authenticator (or, `transport: 'usb'`, a security key) that keeps passkeys and
 * verifies its user. Its presence off by default: a request waits as for a person who picks
 * nothing. On, Chromium's answers even the username field's suggestions at once, which on a sign-in
 * screen signs in by itself. */
export async function virtualAuthenticator(
  page: Page,
  options: { transport?: 'internal' | 'usb'; presence?: boolean } = {},
): Promise<Authenticator> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: options.transport ?? 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: options.presence ?? false,
    },
  });
  return { cdp, authenticatorId };
}

export async function presence({ cdp, authenticatorId }: Authenticator, enabled: boolean) {
  await cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId, enabled });
}

/** From the dashboard, just signed in: Security's methods, the set-up's passkey, made and named;
 * the authenticator's presence is left off. */
export async function addPasskey(page: Page, authenticator: Authenticator, name: string) {
  await page.getByRole('link', { name: 'Security' }).first().click();
  await page.getByRole('link', { name: 'Manage verification methods' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Verification methods');
  await page.getByRole('link', { name: 'Add a method' }).click();
  await page.getByRole('button', { name: 'With a passkey' }).click();
  await presence(authenticator, true);
  await page.getByRole('button', { name: 'Create a passkey' }).click();
  await page.getByLabel('Name of the passkey (optional)').fill(name);
  await presence(authenticator, false);
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByTestId('save-notice')).toHaveText('Your new second factor is on.');
}

/** Password and a code mailed to `mails` (an SMTP peer of the test's own), on the host `origin`;
 * ends on the dashboard. */
export async function signInWithMailedCode(
  page: Page,
  origin: string,
  email: string,
  firstname: string,
  mails: Mail[],
) {
  const sent = () => mails.filter((m) => m.to === email);
  const before = sent().length;
  await page.goto(`${origin}/login/email`);
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('button', { name: /Email a code/ }).click();
  await expect.poll(() => sent().length).toBeGreaterThan(before);
  await page.getByLabel('Security code').fill(codeIn(sent().at(-1)!.raw));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Hello, ${firstname}`);
}

/** Counts each page's conditional requests (the username field's suggestions): presence is turned on
 * only once one waits, or the authenticator would answer it instead of the button's request. */
export async function countSuggestionRequests(page: Page) {
  await page.addInitScript(() => {
    const seen = window as unknown as { suggestionRequests: number };
    seen.suggestionRequests = 0;
    const get = navigator.credentials.get.bind(navigator.credentials);
    navigator.credentials.get = (options?: CredentialRequestOptions) => {
      if (options?.mediation === 'conditional') seen.suggestionRequests += 1;
      return get(options);
    };
  });
}

/** The sign-in screen's suggestions wait for a pick. */
export async function suggestionsWaiting(page: Page) {
  await expect
    .poll(() => page.evaluate(() => (window as unknown as { suggestionRequests?: number }).suggestionRequests ?? 0))
    .toBeGreaterThan(0);
}
