// Partner applications sign their users in through the portal: the relying party's page sends the
// browser to the authorisation server, which goes through our sign-in, second factor and consent
// screens and back to the relying party with a code (or access_denied).
import { expect, test } from '@playwright/test';
import * as oidc from 'openid-client';
import { DEMO_CLIENTS, DEMO_MFA_USERS } from '../server/seed/demo.ts';
import { ISSUER, relyingParty } from './relyingParty.ts';
import { DEMO_PASSWORD, KATO_CARD, expectNoAxeViolations, signIn, user, toDashboard } from './support.ts';

test.use({ locale: 'en-GB' });

const partnerRedirect = DEMO_CLIENTS.find((c) => c.client_id === 'deals-partner')!.redirect_uris[0]!;
const employeeAreaRedirect = DEMO_CLIENTS.find((c) => c.client_id === '17')!.redirect_uris.find((u) =>
  u.startsWith('http://'),
)!;

for (const width of [375, 1280]) {
  test(`a partner signs a person in through sign-in, second factor and consent (${width} px)`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    const kato = DEMO_MFA_USERS.find((u) => u.key === 'card')!;
    const rp = await relyingParty(page, {
      clientId: 'deals-partner',
      redirectUri: partnerRedirect,
      scope: 'openid user balance',
      name: 'Deals partner',
    });
    await page.goto(rp.home);
    await page.getByRole('link', { name: 'Sign in with Tessera' }).click();
    await expect(page).toHaveURL(/\/login\/email\?redirect=%2Foidc%2Finteraction%2F/);
    await expect(page.getByTestId('signing-in-to')).toHaveText('Sign in to continue to Deals partner');
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `test-reports/screens/partner-sign-in-${width}.png`, fullPage: true });
    await signIn(page, kato.email);
    await page.getByRole('button', { name: 'Use my card' }).click();
    await page.getByLabel('Card number').fill(KATO_CARD);
    await page.getByRole('button', { name: 'Confirm' }).click();

    await expect(page).toHaveURL(/\/approve\?uid=/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(
      'Deals partner would like to use your Tessera account',
    );
    await expect(page.getByTestId('asked-scopes').getByRole('listitem')).toHaveCount(2);
    await expect(page.getByTestId('asked-scopes')).not.toContainText('scopes.');
    await expect(page.getByRole('link', { name: 'Privacy policy of Deals partner' })).toHaveAttribute(
      'href',
      'https://deals.partner.example/privacy',
    );
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `test-reports/screens/consent-${width}.png`, fullPage: true });
    await page.getByRole('button', { name: 'Allow' }).click();

    const callback = await rp.callback;
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Deals partner: signed in');
    expect(callback.searchParams.get('iss')).toBe(rp.config.serverMetadata().issuer);
    const tokens = await rp.exchange(callback);
    expect(tokens.claims()).toMatchObject({ aud: 'deals-partner', acr: 'mfa' });
    expect(await oidc.fetchUserInfo(rp.config, tokens.access_token, tokens.claims()!.sub)).toMatchObject({
      user_id: kato.user_id,
    });
  });
}

test('a refusal shows the warning, and the partner hears access_denied when the person goes back', async ({ page }) => {
  const emma = user('cardholder');
  const rp = await relyingParty(page, {
    clientId: 'deals-partner',
    redirectUri: partnerRedirect,
    scope: 'openid balance',
    name: 'Deals partner',
  });
  await page.goto(rp.home);
  await page.getByRole('link', { name: 'Sign in with Tessera' }).click();
  await expect(page).toHaveURL(/\/login\/email\?redirect=%2Foidc%2Finteraction%2F/);
  await signIn(page, emma.email);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(
    'Deals partner would like to use your Tessera account',
  );
  await page.getByRole('button', { name: 'Refuse' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Access refused');
  await expect(page.getByText("Given the consent wasn't given, access is denied.")).toBeVisible();
  await expect(page.getByRole('link', { name: 'Go to the home page' })).toHaveAttribute('href', '/user/dashboard');
  await expectNoAxeViolations(page);
  await page.screenshot({ path: 'test-reports/screens/consent-refused.png', fullPage: true });
  await page.getByRole('button', { name: 'Back to Deals partner' }).click();
  const callback = await rp.callback;
  expect(callback.searchParams.get('error')).toBe('access_denied');
  expect(callback.searchParams.get('code')).toBeNull();
});

test('a first-party platform signs a person in with no consent screen', async ({ page }) => {
  const emma = user('cardholder');
  const rp = await relyingParty(page, {
    clientId: '17',
    redirectUri: employeeAreaRedirect,
    scope: 'openid profile',
    name: 'Employee area',
  });
  await page.goto(rp.home);
  await page.getByRole('link', { name: 'Sign in with Tessera' }).click();
  await expect(page).toHaveURL(/\/login\/email\?redirect=%2Foidc%2Finteraction%2F/);
  await signIn(page, emma.email);
  const callback = await rp.callback;
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Employee area: signed in');
  const tokens = await rp.exchange(callback);
  expect(await oidc.fetchUserInfo(rp.config, tokens.access_token, tokens.claims()!.sub)).toMatchObject({
    given_name: 'Emma',
  });
});

test('a request that is gone says so on the consent screen, with the way home', async ({ page }) => {
  await signIn(page, user('cardholder').email);
  await toDashboard(page);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(/Hello/);
  await page.goto('/approve?uid=unknown-request');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('This request is no longer valid');
  await expect(page.getByRole('link', { name: 'Go to the home page' })).toBeVisible();
  await expectNoAxeViolations(page);
});

test('an application that asks for a new sign-in (prompt=login) gets the password typed again, then its code', async ({
  page,
}) => {
  const emma = user('cardholder');
  await signIn(page, emma.email);
  await toDashboard(page);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Emma');
  const rp = await relyingParty(page, {
    clientId: '17',
    redirectUri: employeeAreaRedirect,
    scope: 'openid',
    name: 'Employee area',
    params: { prompt: 'login' },
  });
  await page.goto(rp.home);
  await page.getByRole('link', { name: 'Sign in with Tessera' }).click();
  await expect(page).toHaveURL(/\/mfa\/methods\?single=true&redirect=%2Foidc%2Finteraction%2F/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText("Confirm it's you");
  await expect(page.getByRole('link', { name: 'Go to the home page' })).toBeVisible();
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Continue' }).click();
  const callback = await rp.callback;
  const tokens = await rp.exchange(callback);
  // Proven for this request: its auth_time is now, not the morning's sign-in.
  expect(tokens.claims()!.auth_time).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) - 30);
  expect(tokens.claims()).toMatchObject({ acr: 'pwd' });
});

test('a platform sends a person in already signed in with a one-time ticket in the URL hash, which goes at once', async ({
  page,
  browser,
}) => {
  const emma = user('cardholder');
  const rp = await relyingParty(page, {
    clientId: '17',
    redirectUri: employeeAreaRedirect,
    scope: 'openid',
    name: 'Employee area',
  });
  await page.goto(rp.home);
  await page.getByRole('link', { name: 'Sign in with Tessera' }).click();
  await expect(page).toHaveURL(/\/login\/email\?redirect=/);
  await signIn(page, emma.email);
  const tokens = await rp.exchange(await rp.callback);
  // The platform's back end asks for a ticket with the access token it holds.
  const portal = new URL(ISSUER).origin;
  const issued = await fetch(`${portal}/api/login-tickets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens.access_token}`, 'x-device-id': 'platform-backend-0001' },
  });
  expect(issued.status).toBe(201);
  const { ticket } = (await issued.json()) as { ticket: string };

  // Another browser, signed in nowhere.
  const fresh = await (await browser.newContext({ locale: 'en-GB' })).newPage();
  await fresh.goto(`${portal}/user/dashboard#ticket=${ticket}&client_id=17`);
  await expect(fresh.getByRole('heading', { level: 1 })).toHaveText('Hello, Emma');
  expect(new URL(fresh.url()).hash).toBe('');
  // Spent: a second use is refused, and said so.
  const again = await (await browser.newContext({ locale: 'en-GB' })).newPage();
  await again.goto(`${portal}/login/email#ticket=${ticket}&client_id=17`);
  await expect(again.getByText('This sign-in link has expired or was already used. Please sign in.')).toBeVisible();
  expect(new URL(again.url()).hash).toBe('');
  await expectNoAxeViolations(again);
});
