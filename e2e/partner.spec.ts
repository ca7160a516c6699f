// Partner applications sign their users in through the portal: the relying party's page sends the
// browser to the authorisation server, which goes through our sign-in, second factor and consent
// screens and back to the relying party with a code (or access_denied).
import { expect, test } from '@playwright/test';
import * as oidc from 'openid-client';
import { DEMO_CLIENTS, DEMO_MFA_USERS } from '../server/seed/demo.ts';
import { ISSUER, dealsPartner, relyingParty, toSignIn } from './relyingParty.ts';
import { DEMO_PASSWORD, KATO_CARD, expectNoAxeViolations, signIn, user, toDashboard } from './support.ts';

test.use({ locale: 'en-GB' });

const employeeAreaRedirect = DEMO_CLIENTS.find((c) => c.client_id === '17')!.redirect_uris.find((u) =>
  u.startsWith('http://'),
)!;

for (const width of [375, 1280]) {
  test(`a partner signs a person in through sign-in, second factor and consent (${width} px)`, async ({ page }) => {
    await page.setViewportSize({ width, height: 900 });
    const kato = DEMO_MFA_USERS.find((u) => u.key === 'card')!;
    const rp = await dealsPartner(page, { scope: 'openid user balance' });
    await toSignIn(page, rp);
    await expect(page.getByTestId('signing-in-to')).toHaveText('Sign in to continue to Deals partner');
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `test-reports/screens/partner-sign-in-${width}.png`, fullPage: true });
    await signIn(page, kato.email);
    await page.getByRole('button', { name: 'Use my card' }).click();
    await page.getByLabel('Card number').fill(KATO_CARD);

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

test('on a phone, the consent screen names the account, and "Not you?" signs out and back in to the same request as another account', async ({
  page,
}) => {
  await page.setViewportSize({ width: 375, height: 800 });
  const emma = user('cardholder');
  const claire = user('customer');
  const rp = await dealsPartner(page, { scope: 'openid user balance' });
  await toSignIn(page, rp);
  await signIn(page, emma.email);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(
    'Deals partner would like to use your Tessera account',
  );
  const account = page.getByTestId('consenting-account');
  await expect(account).toContainText('Signed in as Emma Peeters');
  await expect(account).toContainText(emma.email);
  // One above the other, each the card's whole width.
  const allow = (await page.getByRole('button', { name: 'Allow' }).boundingBox())!;
  const refuse = (await page.getByRole('button', { name: 'Refuse' }).boundingBox())!;
  expect([allow.width, refuse.x, refuse.y > allow.y + allow.height]).toEqual([refuse.width, allow.x, true]);
  expect(allow.width).toBeGreaterThan(280);
  await page.getByRole('link', { name: 'Not you? Sign in with another account' }).click();

  // Signed out, on the sign-in of the same request, which still names the application.
  await expect(page).toHaveURL(/\/login\/email\?redirect=%2Foidc%2Finteraction%2F/);
  await expect(page.getByTestId('signing-in-to')).toHaveText('Sign in to continue to Deals partner');
  expect((await page.context().cookies()).find((c) => c.name === 'tessera_token')).toBeUndefined();
  await signIn(page, claire.email);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(
    'Deals partner would like to use your Tessera account',
  );
  await expect(account).toContainText('Signed in as Claire Dubois');
  await page.getByRole('button', { name: 'Allow' }).click();

  // The relying party's own request goes on: its state and PKCE hold, and the code is Claire's.
  const tokens = await rp.exchange(await rp.callback);
  expect(await oidc.fetchUserInfo(rp.config, tokens.access_token, tokens.claims()!.sub)).toMatchObject({
    user_id: claire.user_id,
  });
});

test("the consent screen shows the partner's logo, served by the portal: nothing loads from elsewhere (375 px)", async ({
  page,
}) => {
  await page.setViewportSize({ width: 375, height: 800 });
  const portal = new URL(ISSUER).origin;
  const rp = await dealsPartner(page);
  await toSignIn(page, rp);
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));
  await signIn(page, user('cardholder').email);
  await expect(page).toHaveURL(/\/approve\?uid=/);
  const logo = page.getByTestId('client-logo');
  await expect(logo).toHaveAttribute('src', new RegExp(`^${portal}/api/clients/deals-partner/logo\\?v=`));
  await expect(logo).toHaveAttribute('alt', '');
  await expect(logo).toHaveJSProperty('complete', true);
  await expect(logo).toHaveJSProperty('naturalWidth', 96);
  await page.waitForLoadState('networkidle');
  expect(requested.filter((url) => new URL(url).origin !== portal)).toEqual([]);
  expect(requested.some((url) => url.startsWith(`${portal}/api/clients/deals-partner/logo`))).toBe(true);
});

test('a refusal ends the request on the server at once, shows the warning and what it means, and "Back to" the partner brings it access_denied (375 px)', async ({
  page,
}) => {
  await page.setViewportSize({ width: 375, height: 800 });
  const emma = user('cardholder');
  const rp = await dealsPartner(page);
  await toSignIn(page, rp);
  await signIn(page, emma.email);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(
    'Deals partner would like to use your Tessera account',
  );
  const uid = new URL(page.url()).searchParams.get('uid')!;
  await page.getByRole('button', { name: 'Refuse' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Access refused');
  // Ended on the server with no further click: the request's own address no longer leads anywhere.
  const portal = new URL(ISSUER).origin;
  const probe = await page.context().newPage();
  expect((await probe.goto(`${portal}/oidc/interaction/${uid}`))!.status()).toBe(400);
  await probe.close();
  await expect(page.getByText("Given the consent wasn't given, access is denied.")).toBeVisible();
  await expect(
    page.getByText('Deals partner will not receive any of your details. You stay signed in to Tessera.'),
  ).toBeVisible();
  const back = (await page.getByRole('button', { name: 'Back to Deals partner' }).boundingBox())!;
  expect(back.width).toBeGreaterThan(280);
  await expect(page.getByRole('link', { name: 'Go to the home page' })).toHaveAttribute('href', '/user/dashboard');
  await expectNoAxeViolations(page);
  await page.screenshot({ path: 'test-reports/screens/consent-refused.png', fullPage: true });
  await page.getByRole('button', { name: 'Back to Deals partner' }).click();
  const callback = await rp.callback;
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Deals partner: access_denied');
  expect(callback.searchParams.get('error')).toBe('access_denied');
  expect(callback.searchParams.get('iss')).toBe(ISSUER);
  expect(callback.searchParams.get('code')).toBeNull();
  // The relying party's own check: its state comes back with the error.
  await expect(rp.exchange(callback)).rejects.toMatchObject({ error: 'access_denied' });
});

test("a partner's sign-out returns to its registered signed-out page with its state; another address is refused (375 px)", async ({
  page,
}) => {
  await page.setViewportSize({ width: 375, height: 800 });
  const signedOutUri = DEMO_CLIENTS.find((c) => c.client_id === 'deals-partner')!.post_logout_redirect_uris![0]!;
  const rp = await dealsPartner(page, { postLogoutRedirectUri: signedOutUri });
  await toSignIn(page, rp);
  await signIn(page, user('cardholder').email);
  await page.getByRole('button', { name: 'Allow' }).click();
  const tokens = await rp.exchange(await rp.callback);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Deals partner: signed in');

  // An address the partner did not register: refused, said to be a sign-out, and no redirect.
  const elsewhere = oidc.buildEndSessionUrl(rp.config, {
    id_token_hint: tokens.id_token!,
    post_logout_redirect_uri: 'https://evil.example/',
    state: 'x',
  });
  const refused = await page.goto(elsewhere.href);
  expect(refused!.status()).toBe(400);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('The sign-out request is invalid.');
  expect(new URL(page.url()).origin).toBe(new URL(ISSUER).origin);

  await page.goto(
    oidc.buildEndSessionUrl(rp.config, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: signedOutUri,
      state: 'back-to-deals',
    }).href,
  );
  await page.getByRole('button', { name: /sign( me)? out/i }).click();
  const back = await rp.signedOut;
  expect(`${back.origin}${back.pathname}`).toBe(signedOutUri);
  expect(back.searchParams.get('state')).toBe('back-to-deals');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Deals partner: signed out');
  await page.screenshot({ path: 'test-reports/screens/partner-signed-out-375.png', fullPage: true });
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
