// Typed text shown back, in Chromium: a demo persona whose names are hostile markup, a device whose
// browser is named by markup, a Microsoft identity and company whose claims and name are markup, and
// a partner application registered (through the command line) under a hostile name. Every screen
// that shows them shows them literally: no dialog ever opens, and no element of theirs is in the DOM.
// The test runs a server of its own (a SQLite file, so that it can set what no screen lets a person
// set, and the command line can register the partner), with the built app, and an Entra ID stand-in.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { runCli } from '../server/cli/index.ts';
import { linkIdentity } from '../server/identity/sso.ts';
import { DEMO_PASSWORD, DEMO_USERS } from '../server/seed/demo.ts';
import { startEntraStandIn, type EntraStandIn } from '../server/testing/entraStandIn.ts';
import { startTestServer, type TestServer } from '../server/testing/harness.ts';
import { freePort } from '../server/testing/ports.ts';

test.use({ locale: 'en-GB' });
// One server for the file: its tests run one after the other, in one worker.
test.describe.configure({ mode: 'serial' });

const IMG = '<img src=x onerror=alert(1)>';
const SCRIPT = '"><script>alert(1)</script>';
const TEMPLATE = "{{constructor.constructor('alert(1)')()}}";
const FIRSTNAME = `${IMG} ${TEMPLATE}`;
const LASTNAME = SCRIPT;
const PARTNER = `${IMG}${SCRIPT}${TEMPLATE}`;
const COMPANY = `${IMG} Corp`;
const AGENT = `${IMG}/1.0 (Windows NT 10.0; Win64; x64)`;
const TENANT = '9b8a7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const PARTNER_REDIRECT = 'https://hostile.partner.example/cb';
const noah = DEMO_USERS.find((u) => u.key === 'newcomer')!;

let server: TestServer;
let idp: EntraStandIn;
let dir: string;
let base: string;

test.beforeAll(async () => {
  const port = await freePort();
  base = `http://account.localhost:${port}`;
  dir = mkdtempSync(join(tmpdir(), 'tessera-e2e-escaping-'));
  idp = await startEntraStandIn({
    tenants: [TENANT],
    clientId: 'tessera-escaping',
    clientSecret: 'tessera-escaping-secret',
    redirectUris: [`${base}/sso/microsoft/login/callback`],
  });
  server = await startTestServer('sqlite', {
    SQLITE_PATH: join(dir, 'tessera.sqlite'),
    SPA_DIR: process.env.ESCAPING_SPA_DIR ?? 'dist',
    PUBLIC_ORIGIN_BE: base,
    LOG_LEVEL: 'warn',
    MICROSOFT_CLIENT_ID: 'tessera-escaping',
    MICROSOFT_CLIENT_SECRET: 'tessera-escaping-secret',
    MICROSOFT_TENANTS: `${TENANT}=${COMPANY}`,
    MICROSOFT_AUTHORITY: idp.authority,
  });
  await server.app.listen({ port, host: '127.0.0.1' });
  const { db } = server.ctx;

  // Noah's names, as no screen would take them (an import, legacy data).
  const { id: userId } = await db
    .selectFrom('user_emails')
    .select('user_id as id')
    .where('value', '=', noah.email)
    .executeTakeFirstOrThrow();
  await db.updateTable('users').set({ firstname: FIRSTNAME, lastname: LASTNAME }).where('id', '=', userId).execute();
  // A Microsoft identity whose claims are markup, linked to him.
  await db.transaction().execute((trx) =>
    linkIdentity(trx, userId, {
      provider: 'microsoft',
      tenantId: TENANT,
      objectId: '0f1e2d3c-4b5a-4697-8a5b-4c3d2e1f0a9b',
      email: `${SCRIPT}@evil.example`,
      name: IMG,
    }),
  );
  // A sign-in from a browser whose user agent names it by markup.
  const signedIn = await server.app.inject({
    method: 'POST',
    url: '/api/token',
    headers: { host: new URL(base).host, 'x-device-id': 'escaping-hostile-agent', 'user-agent': AGENT },
    payload: { username: noah.email, password: DEMO_PASSWORD },
  });
  expect(signedIn.statusCode).toBe(200);
  // A partner registered under a hostile name, through the command line.
  let out = '';
  const code = await runCli(
    [
      'clients',
      'add',
      'hostile-partner',
      '--name',
      PARTNER,
      '--redirect-uri',
      PARTNER_REDIRECT,
      '--scope',
      'balance',
      '--policy-uri',
      'https://hostile.partner.example/privacy',
      '--admin-email',
      'admin@hostile.partner.example',
    ],
    {
      env: { NODE_ENV: 'test', SECRET_KEY: server.ctx.config.secretKey, SQLITE_PATH: server.ctx.config.sqlitePath },
      stdout: (text) => {
        out += text;
      },
      stderr: (text) => {
        out += text;
      },
    },
  );
  expect(code, out).toBe(0);
});

test.afterAll(async () => {
  await server?.stop();
  await idp?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Every dialog a page opens (an alert() that ran): none is expected. */
function dialogsOf(page: Page): string[] {
  const opened: string[] = [];
  page.on('dialog', (dialog) => {
    opened.push(dialog.message());
    void dialog.dismiss();
  });
  return opened;
}

/** No element of the typed markup is in the DOM (the policy would block a script; the element would still be there).
 * The one inline script a page may carry is the one its own policy names by hash (a drawn page's starter). */
async function expectNothingInjected(page: Page) {
  await expect(page.locator('img[src="x"]')).toHaveCount(0);
  await expect(page.locator('[onerror], [onload]')).toHaveCount(0);
  const drawn = await server.app.inject({ method: 'GET', url: '/login/email', headers: { host: new URL(base).host } });
  const policy = String(drawn.headers['content-security-policy'] ?? '');
  const inline = await page
    .locator('script:not([src]):not([type="application/json"])')
    .evaluateAll((scripts) => scripts.map((s) => s.textContent ?? ''));
  expect(inline.length).toBeLessThanOrEqual(1);
  for (const text of inline) expect(policy).toContain(`'sha256-${createHash('sha256').update(text).digest('base64')}'`);
  expect(
    await page
      .locator('script')
      .evaluateAll(
        (scripts) =>
          scripts.filter(
            (s) => (s.textContent ?? '').includes('alert(1)') && s.getAttribute('type') !== 'application/json',
          ).length,
      ),
  ).toBe(0);
}

async function signIn(page: Page, path = '/login/email') {
  await page.goto(`${base}${path}`);
  await page.getByLabel('Email address').fill(noah.email);
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

const heading = (page: Page) => page.getByRole('heading', { level: 1 });

test('a person named by markup sees the names literally on the dashboard, profile and security screens', async ({
  page,
}) => {
  const dialogs = dialogsOf(page);
  await signIn(page);
  await expect(heading(page)).toHaveText(`Hello, ${FIRSTNAME}`);
  await expect(page.getByText(`Signed in as ${FIRSTNAME}`)).toBeAttached();
  await expectNothingInjected(page);

  await page.goto(`${base}/profile`);
  const personal = page.getByRole('region', { name: 'Personal information' });
  await expect(personal.getByText(FIRSTNAME, { exact: true })).toBeVisible();
  await expect(personal.getByText(LASTNAME, { exact: true })).toBeVisible();
  await expectNothingInjected(page);

  // The form shows them as they are, in its fields.
  await personal.getByRole('button', { name: 'Edit' }).click();
  await expect(heading(page)).toHaveText('Edit personal information');
  await expect(page.getByLabel('First name')).toHaveValue(FIRSTNAME);
  await expect(page.getByLabel('Last name')).toHaveValue(LASTNAME);
  await expectNothingInjected(page);

  await page.goto(`${base}/security`);
  await expect(heading(page)).toHaveText('Security settings');
  // The device whose browser is named by markup, by that name.
  await expect(page.getByTestId('device').filter({ hasText: `${IMG} 1.0` })).toHaveCount(1);
  // The Microsoft identity: its company and its email, as they are.
  const linked = page.getByTestId('linked-identity');
  await expect(linked).toHaveCount(1);
  await expect(linked).toContainText(`Microsoft account — ${COMPANY}`);
  await expect(linked).toContainText(`${SCRIPT}@evil.example`);
  await expectNothingInjected(page);
  expect(dialogs).toEqual([]);
});

test('a partner application named by markup is named literally on its landing, the sign-in, the consent and the access list', async ({
  page,
}) => {
  const dialogs = dialogsOf(page);
  let callback: URL | null = null;
  await page.route('https://hostile.partner.example/**', async (route) => {
    callback = new URL(route.request().url());
    await route.fulfill({
      contentType: 'text/html',
      body: '<!doctype html><html lang="en"><title>Partner</title><main><h1>Partner: back</h1></main></html>',
    });
  });

  await page.goto(`${base}/partner?client_id=hostile-partner`);
  await expect(heading(page)).toHaveText(`Sign in to ${PARTNER} with your Tessera account`);
  await expectNothingInjected(page);

  // The partner's own authorization request (code + PKCE).
  const verifier = randomBytes(32).toString('base64url');
  const authorization = new URL(`${base}/oidc/auth`);
  authorization.search = new URLSearchParams({
    client_id: 'hostile-partner',
    redirect_uri: PARTNER_REDIRECT,
    response_type: 'code',
    scope: 'openid balance',
    state: 'escaping-state',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  await page.goto(authorization.href);
  await expect(page).toHaveURL(/\/login\/email\?redirect=%2Foidc%2Finteraction%2F/);
  await expect(page.getByTestId('signing-in-to')).toHaveText(`Sign in to continue to ${PARTNER}`);
  await expectNothingInjected(page);

  await page.getByLabel('Email address').fill(noah.email);
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page).toHaveURL(/\/approve\?uid=/);
  await expect(heading(page)).toHaveText(`${PARTNER} would like to use your Tessera account`);
  await expect(page.getByRole('link', { name: `Privacy policy of ${PARTNER}` })).toHaveAttribute(
    'href',
    'https://hostile.partner.example/privacy',
  );
  await expectNothingInjected(page);
  await page.getByRole('button', { name: 'Allow' }).click();
  await expect(heading(page)).toHaveText('Partner: back');
  expect(callback!.searchParams.get('code')).toBeTruthy();

  await page.goto(`${base}/user/access`);
  await expect(heading(page)).toHaveText('Applications with access');
  await expect(page.getByRole('region', { name: PARTNER })).toBeVisible();
  await expect(page.getByRole('button', { name: `Revoke access for ${PARTNER}` })).toBeVisible();
  await expectNothingInjected(page);
  expect(dialogs).toEqual([]);
});

test('a Microsoft identity whose claims are markup is shown literally on the link screen', async ({ page }) => {
  const dialogs = dialogsOf(page);
  await page.goto(`${base}/login/email`);
  idp.signInAs({
    oid: '1a2b3c4d-5e6f-4789-8abc-def012345678',
    name: `${SCRIPT}${TEMPLATE}`,
    email: `${IMG}@evil.example`,
  });
  await page.getByRole('button', { name: 'Sign in with Microsoft' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Continue with Microsoft' }).click();
  await expect(page).toHaveURL(/\/partner\/link-existing\?ticket=/);
  const identity = page.getByTestId('microsoft-identity');
  await expect(identity).toContainText(`${SCRIPT}${TEMPLATE}`);
  await expect(identity).toContainText(`${IMG}@evil.example`);
  await expect(identity).toContainText(COMPANY);
  await expectNothingInjected(page);
  expect(dialogs).toEqual([]);
});

test("a javascript: target in the sign-in's redirect or the dashboard's redirect_uri is never followed", async ({
  page,
}) => {
  const dialogs = dialogsOf(page);
  await signIn(page, `/login/email?redirect=${encodeURIComponent('javascript:alert(1)')}`);
  await expect(page).toHaveURL(`${base}/user/dashboard`);
  await expect(heading(page)).toHaveText(`Hello, ${FIRSTNAME}`);
  await page.goto(`${base}/user/dashboard?redirect_uri=${encodeURIComponent('javascript:alert(1)')}`);
  await expect(heading(page)).toHaveText(`Hello, ${FIRSTNAME}`);
  await expect(page).toHaveURL(/\/user\/dashboard/);
  await expectNothingInjected(page);
  expect(dialogs).toEqual([]);
});
