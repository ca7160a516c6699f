// A passkey made on the Belgian host signs in on the Luxembourg host, whose host is not under the
// relying party's id (the Belgian host): the browser takes it only because
// https://<rp id>/.well-known/webauthn names the Luxembourg origin (WebAuthn's related origins). So a
// server of its own, and in front of it, on port 443 as the browser asks, a TLS listener for the
// Belgian host (its certificate made here, Chromium told to ignore certificate errors) that relays
// the portal's answer. Where the browser reports no related origins, the Luxembourg host offers no
// passkey at all, and says why in Security, while the Belgian host still does.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from '../scripts/chromium.ts';
import { DEMO_MFA_USERS, DEMO_PASSWORD } from '../server/seed/demo.ts';
import { ownPortal, type OwnPortal } from './ownPortal.ts';
import { startSmtp } from '../server/testing/peers.ts';
import {
  addPasskey,
  countSuggestionRequests,
  presence,
  signInWithMailedCode,
  suggestionsWaiting,
  virtualAuthenticator,
} from './passkeyKit.ts';
import { expectNoAxeViolations } from './support.ts';

// The relying party's well-known document is fetched over HTTPS from a certificate made here.
test.use({
  locale: 'en-GB',
  launchOptions: { executablePath: CHROMIUM_PATH, args: [...CHROMIUM_FLAGS, '--ignore-certificate-errors'] },
});
// One server, one persona: the tests one after the other.
test.describe.configure({ mode: 'serial' });

const pieter = DEMO_MFA_USERS.find((u) => u.key === 'passkey')!;

let portal: OwnPortal;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let relay: https.Server;
let dir: string;
let be: string;
let lu: string;
/** The paths the browser asked of the Belgian host on port 443. */
const wellKnownAsked: string[] = [];

test.beforeAll(async () => {
  smtp = await startSmtp();
  // Not under account.localhost: without related origins, no passkey of the Belgian host works here.
  const luOf = (port: number) => `http://account.lu.localhost:${port}`;
  portal = await ownPortal('variants', (port) => ({ PUBLIC_ORIGIN_LU: luOf(port), SMTP_URL: smtp.url }));
  be = portal.base;
  lu = luOf(portal.port);
  // The relay's certificate, made for this run.
  dir = mkdtempSync(join(tmpdir(), 'tessera-e2e-variants-'));

  execFileSync('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=account.localhost',
    '-addext',
    'subjectAltName=DNS:account.localhost',
    '-keyout',
    join(dir, 'key.pem'),
    '-out',
    join(dir, 'cert.pem'),
  ]);
  // What the portal's Belgian origin answers, relayed as it is.
  relay = https.createServer(
    { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
    (request, response) => {
      wellKnownAsked.push(request.url ?? '');
      const upstream = http.request(
        {
          host: '127.0.0.1',
          port: portal.port,
          path: request.url,
          method: request.method,
          headers: { host: new URL(be).host, accept: request.headers.accept ?? '*/*' },
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      upstream.on('error', () => response.writeHead(502).end());
      upstream.end();
    },
  );
  await new Promise<void>((resolve, reject) => {
    relay.once('error', reject);
    relay.listen(443, '127.0.0.1', resolve);
  });
});

test.afterAll(async () => {
  await new Promise((resolve) => (relay ? relay.close(resolve) : resolve(undefined)));
  await portal?.stop();
  await smtp?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const heading = (page: Page) => page.getByRole('heading', { level: 1 });

/** Password and a mailed code, on the host `origin`; ends on the dashboard. */
const signInWithEmailCode = (page: Page, origin: string) =>
  signInWithMailedCode(page, origin, pieter.email, 'Pieter', smtp.mails);

async function logOut(page: Page) {
  await page.getByRole('link', { name: 'Log out' }).first().click();
  await expect(page).toHaveURL(/\/login\/email$/);
}

async function newPage(browser: Browser, width: number): Promise<Page> {
  const context = await browser.newContext({ locale: 'en-GB', viewport: { width, height: 900 } });
  return context.newPage();
}

test('a passkey made on the Belgian host signs in on the Luxembourg host, through the related origins the Belgian host names', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const page = await newPage(browser, 1280);
  await countSuggestionRequests(page);
  const authenticator = await virtualAuthenticator(page);
  await signInWithEmailCode(page, be);

  // Made on the Belgian host, from Security.
  await addPasskey(page, authenticator, 'Laptop');
  const { credentials } = await authenticator.cdp.send('WebAuthn.getCredentials', {
    authenticatorId: authenticator.authenticatorId,
  });
  expect(credentials.map((c) => c.rpId)).toEqual(['account.localhost']);
  await logOut(page);

  // On the Luxembourg host: the button, and the Belgian host's passkey signs in.
  await page.goto(`${lu}/login/email`);
  const button = page.getByRole('button', { name: 'Sign in with a passkey' });
  await expect(button).toBeVisible();
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `test-results/screens/passkey-lu-login-${width}.png`, fullPage: true });
  }
  await suggestionsWaiting(page);
  await presence(authenticator, true);
  await button.click();
  await expect(heading(page)).toHaveText('Hello, Pieter');
  expect(new URL(page.url()).origin).toBe(lu);
  // The browser asked the relying party which origins may use its passkeys.
  expect(wellKnownAsked).toContain('/.well-known/webauthn');

  // Left as found: the email code only.
  await presence(authenticator, false);
  await page.goto(`${lu}/security/mfa-edit`);
  await page.getByRole('button', { name: 'Delete: Passkey: Laptop' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Yes, delete it' }).click();
  await expect(page.getByTestId('save-notice')).toHaveText('The method was deleted.');
  await page.context().close();
});

test('where the browser reports no related origins, the Luxembourg host offers no passkey and Security says why; the Belgian host still offers one', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const page = await newPage(browser, 375);
  // This browser reports no related origins; the page counts the browser's answers.
  await page.addInitScript(() => {
    const capabilities = PublicKeyCredential.getClientCapabilities.bind(PublicKeyCredential);
    const seen = window as unknown as { capabilitiesAnswered: number };
    seen.capabilitiesAnswered = 0;
    PublicKeyCredential.getClientCapabilities = async () => {
      const answer = { ...(await capabilities()), relatedOrigins: false };
      seen.capabilitiesAnswered += 1;
      return answer;
    };
  });
  /** The page has the browser's answer, and has drawn what follows from it. */
  const answered = async () => {
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { capabilitiesAnswered: number }).capabilitiesAnswered))
      .toBeGreaterThan(0);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  };
  const passkeyButton = page.getByRole('button', { name: 'Sign in with a passkey' });
  const passkeyChoice = page.getByRole('button', { name: 'With a passkey' });
  const why = page.getByText(
    'Passkeys cannot be used on this site in this browser, as it does not let the Luxembourg site use the passkeys of the Belgian site.',
  );

  // The Belgian host: the button, and the set-up's passkey; Pieter adds one.
  const authenticator = await virtualAuthenticator(page);
  await signInWithEmailCode(page, be);
  await page.goto(`${be}/security/mfa-edit`);
  await expect(heading(page)).toHaveText('Verification methods');
  await page.getByRole('link', { name: 'Add a method' }).click();
  await expect(passkeyChoice).toBeVisible();
  await page.getByRole('button', { name: 'Back' }).click();
  await expect(heading(page)).toHaveText('Verification methods');
  await expect(why).toHaveCount(0);
  await page.goto(`${be}/user/dashboard`);
  await addPasskey(page, authenticator, 'Laptop');
  await logOut(page);
  await expect(passkeyButton).toBeVisible();

  // The Luxembourg host: the second factor's choice offers his email code, not the passkey this
  // browser cannot use here.
  await page.goto(`${lu}/login/email`);
  await page.getByLabel('Email address').fill(pieter.email);
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('button', { name: /Email a code/ })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Use my passkey: Laptop' })).toHaveCount(0);
  await page.screenshot({ path: 'test-results/screens/passkey-lu-barred-choice-375.png', fullPage: true });

  // Security says why, the set-up offers no passkey, the sign-in no button.
  await signInWithEmailCode(page, lu);
  await page.goto(`${lu}/security/mfa-edit`);
  await expect(heading(page)).toHaveText('Verification methods');
  await expect(why).toBeVisible();
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: 900 });
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `test-results/screens/passkey-lu-barred-${width}.png`, fullPage: true });
  }
  await page.getByRole('link', { name: 'Add a method' }).click();
  await expect(heading(page)).toHaveText('How should we send your codes?');
  await expect(page.getByRole('button', { name: 'By email' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'With an authenticator app' })).toBeVisible();
  await expect(passkeyChoice).toHaveCount(0);
  await page.goto(`${lu}/user/dashboard`);
  await logOut(page);
  await answered();
  await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
  await expect(passkeyButton).toHaveCount(0);

  // Left as found: the email code only (deleted on the Belgian host, where it is usable).
  await signInWithEmailCode(page, be);
  await page.goto(`${be}/security/mfa-edit`);
  await page.getByRole('button', { name: 'Delete: Passkey: Laptop' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Yes, delete it' }).click();
  await expect(page.getByTestId('save-notice')).toHaveText('The method was deleted.');
  await page.context().close();
});
