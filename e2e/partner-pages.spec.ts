// The partner pages (spec §2 `/partner…`) and the website access chooser, at a phone's and a
// desktop's width, each checked with axe: the landing, asking the administrator for access, the
// options without an account, linking an existing one, and the success that goes on by itself.
import { expect, test, type Page } from '@playwright/test';
import { DEMO_CLIENTS } from '../server/seed/demo.ts';
import { relyingParty } from './relyingParty.ts';
import { DEMO_PASSWORD, expectNoAxeViolations, mailsTo, signIn, toDashboard, user } from './support.ts';

test.use({ locale: 'en-GB' });

const emma = user('cardholder');
const noah = user('newcomer');

/** Other files' consents may have given the signed-in person's access to the partner already (the
 * demo data is shared): it is taken back, as from the access list, so a request can be asked.
 * Whether there was one to take back. */
async function withoutAccess(page: Page, clientId = 'deals-partner'): Promise<boolean> {
  const status = await page.evaluate(
    async (id) =>
      (
        await fetch(`/api/token/${id}`, {
          method: 'DELETE',
          headers: { 'x-device-id': localStorage.getItem('device_id')! },
        })
      ).status,
    clientId,
  );
  expect([204, 404]).toContain(status);
  return status === 204;
}
/** Registered by the client area (client 2): a redirect_uri the success may follow. */
const CLIENT_AREA = 'http://client.localhost:3000/auth/callback';
const shot = (page: Page, name: string, width: number) =>
  page.screenshot({ path: `test-reports/screens/partner-${name}-${width}.png`, fullPage: true });
const heading = (page: Page) => page.getByRole('heading', { level: 1 });

for (const width of [375, 1280]) {
  test.describe(`at ${width} px`, () => {
    test.beforeEach(async ({ page }) => {
      await page.setViewportSize({ width, height: 900 });
    });

    test('a visitor sees the partner, what it may ask for, and the options without an account', async ({ page }) => {
      await page.goto('/partner?client_id=deals-partner');
      await expect(heading(page)).toHaveText('Sign in to Deals partner with your Tessera account');
      await expect(page.getByTestId('partner-scopes').getByRole('listitem')).toHaveCount(7);
      await expect(page.getByTestId('partner-scopes')).toContainText('See your card balances');
      await expect(page.getByTestId('partner-scopes')).not.toContainText('scopes.');
      await expectNoAxeViolations(page);
      await shot(page, 'landing', width);

      await page.getByRole('link', { name: 'No Tessera account yet?' }).click();
      await expect(page).toHaveURL(/\/partner\/no-account\?client_id=deals-partner$/);
      await expect(heading(page)).toHaveText('No Tessera account yet?');
      await expect(page.getByRole('link', { name: /Activate a card/ })).toHaveAttribute('href', '/onboarding/card');
      await expect(page.getByRole('link', { name: /Become a customer/ })).toHaveAttribute('href', /^https:\/\//);
      await expectNoAxeViolations(page);
      await shot(page, 'no-account', width);

      await page.getByRole('link', { name: /Link an account/ }).click();
      await expect(page).toHaveURL(/\/partner\/link-existing\?client_id=deals-partner$/);
      await expect(heading(page)).toHaveText('Link your existing account');
      // Without a Microsoft sign-in's ticket there is nothing to link yet: the way to sign in with Microsoft.
      await expect(
        page.getByText('To link your Microsoft account, first sign in with Microsoft on the sign-in page.'),
      ).toBeVisible();
      await expectNoAxeViolations(page);
      await shot(page, 'link-existing', width);

      // Back on the landing, Cancel goes home: for a visitor, the sign-in.
      await page.goto('/partner?client_id=deals-partner');
      await page.getByRole('button', { name: 'Cancel' }).click();
      await expect(page).toHaveURL(/\/login\/email$/);
    });

    test('an unknown or first-party client has no landing', async ({ page }) => {
      for (const id of ['nobody', '17']) {
        await page.goto(`/partner?client_id=${id}`);
        await expect(heading(page)).toHaveText('Unknown application');
      }
      await expectNoAxeViolations(page);
    });

    test("a signed-in person asks the partner's administrator for access, and the request is sent", async ({
      page,
    }) => {
      const before = (await mailsTo('access@deals.partner.example')).length;
      // Asked for before signing in: the sign-in comes first and comes back.
      await page.goto('/partner/request-access?client_id=deals-partner');
      await expect(page).toHaveURL(/\/login\/email$/);
      await signIn(page, width === 375 ? noah.email : emma.email);
      await expect(page).toHaveURL(/\/partner\/request-access\?client_id=deals-partner$/);
      if (await withoutAccess(page)) await page.reload();
      await expect(heading(page)).toHaveText('Ask for access to Deals partner');
      await expectNoAxeViolations(page);
      await shot(page, 'request-access', width);
      await page.getByRole('button', { name: 'Send the request' }).click();
      await expect(heading(page)).toHaveText('Request sent');
      await expect(
        page.getByText('The administrator of Deals partner has received your request.', { exact: false }),
      ).toBeVisible();
      await expectNoAxeViolations(page);
      await shot(page, 'request-sent', width);
      await expect.poll(async () => (await mailsTo('access@deals.partner.example')).length).toBe(before + 1);
      const mail = (await mailsTo('access@deals.partner.example')).at(-1)!;
      expect(mail).toContain(width === 375 ? noah.email : emma.email);
    });

    test('with no Microsoft sign-in waiting, the success says nothing was linked, names the client area and goes there after 3 seconds', async ({
      page,
    }) => {
      await page.route('http://client.localhost:3000/**', (route) =>
        route.fulfill({
          status: 200,
          contentType: 'text/html',
          body: '<title>Client area</title><h1>Client area</h1>',
        }),
      );
      await page.clock.install();
      await page.goto(`/partner/link-success?redirect_uri=${encodeURIComponent(CLIENT_AREA)}`);
      await expect(page).toHaveURL(/\/login\/email$/);
      await signIn(page, noah.email);
      // A sensitive screen: an account without a second factor confirms with its password.
      await expect(page).toHaveURL(/\/mfa\/methods\?single=true&redirect=%2Fpartner%2Flink-success%3Fredirect_uri%3D/);
      await page.getByLabel('Password').fill(DEMO_PASSWORD);
      // The page's time stands still from here (its own time, not this process's): only the clock
      // below moves it, so the success screen's 3 s start when the test says. The margin leaves a busy
      // machine time to reach the pause before that instant has passed.
      await page.clock.pauseAt(await page.evaluate(() => Date.now() + 500));
      await page.getByRole('button', { name: 'Continue' }).click();
      await expect(heading(page)).toHaveText('Nothing was linked');
      await expect(
        page.getByText('No Microsoft sign-in was waiting to be linked, so your account has not changed.'),
      ).toBeVisible();
      await expect(page.getByText('You are going on to the client area in a moment.')).toBeVisible();
      await shot(page, 'link-success', width);
      // No axe here: it waits on the page's timers, which stand still (moving them while it runs
      // let the page leave under it); the success's markup is the shared FlowCard's, checked on
      // the other partner pages.
      await page.clock.runFor(2_500);
      await expect(heading(page)).toHaveText('Nothing was linked');
      await page.clock.runFor(1_000);
      await expect(page).toHaveURL(CLIENT_AREA);
    });
  });
}

test("Continue on a partner's landing goes on to its request: sign-in, then the consent screen", async ({ page }) => {
  const rp = await relyingParty(page, {
    clientId: 'deals-partner',
    redirectUri: DEMO_CLIENTS.find((c) => c.client_id === 'deals-partner')!.redirect_uris[0]!,
    scope: 'openid balance',
    name: 'Deals partner',
  });
  await page.goto(rp.home);
  const authorization = new URL((await page.getByRole('link', { name: 'Sign in with Tessera' }).getAttribute('href'))!);
  await page.goto(
    `/partner?${new URLSearchParams({ client_id: 'deals-partner', redirect: authorization.pathname + authorization.search })}`,
  );
  await expect(heading(page)).toHaveText('Sign in to Deals partner with your Tessera account');
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page).toHaveURL(/\/login\/email\?redirect=%2Foidc%2Finteraction%2F/);
  await signIn(page, noah.email);
  await expect(heading(page)).toHaveText('Deals partner would like to use your Tessera account');
});

test('an unregistered redirect_uri is not followed: the success goes to the dashboard', async ({ page }) => {
  await page.goto('/login/email');
  await signIn(page, noah.email);
  // One platform: no chooser.
  await toDashboard(page);
  await expect(heading(page)).toHaveText('Hello, Noah');
  await page.goto(`/partner/link-success?redirect_uri=${encodeURIComponent('https://evil.example/steal')}`);
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByText('You are going on to your Tessera account in a moment.')).toBeVisible();
  await expect(heading(page)).toHaveText('Hello, Noah');
  expect(page.url()).toMatch(/\/user\/dashboard$/);
});

for (const width of [375, 1280]) {
  test(`Emma, with all three platforms, chooses where to go after signing in, or skips to her account (${width} px)`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height: 900 });
    await signIn(page, emma.email);
    await expect(page).toHaveURL(/\/user\/choose-platform$/);
    await expect(heading(page)).toHaveText('Where do you want to go, Emma?');
    for (const [key, name] of [
      ['client', 'Client area'],
      ['fridom', 'Administration'],
      ['my', 'Employee area'],
      ['deals', 'Deals platform'],
    ]) {
      await expect(page.getByTestId(`choose-${key}`)).toContainText(name!);
    }
    await expect(page.getByTestId('choose-client').getByRole('link')).toHaveAttribute('href', /client\.localhost/);
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `test-reports/screens/chooser-${width}.png`, fullPage: true });
    if (width === 375) await page.getByRole('link', { name: 'Go to my account' }).click();
    else await toDashboard(page);
    await expect(heading(page)).toHaveText('Hello, Emma');
  });
}

test.describe('at 375 px', () => {
  test.beforeEach(async ({ page }) => {
    await page.setViewportSize({ width: 375, height: 800 });
  });

  test("the success names a partner's address by its host, not as 'your destination'", async ({ page }) => {
    const partnerAddress = DEMO_CLIENTS.find((c) => c.client_id === 'deals-partner')!.redirect_uris[0]!;
    await page.route('https://deals.partner.example/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Deals</title><h1>Deals partner</h1>' }),
    );
    await page.goto(`/partner/link-success?redirect_uri=${encodeURIComponent(partnerAddress)}`);
    // Signed out, the screen sends to the sign-in and keeps where it was going.
    await expect(page).toHaveURL(/\/login\/email$/);
    await signIn(page, noah.email);
    await expect(page).toHaveURL(/\/mfa\/methods\?single=true/);
    await page.getByLabel('Password').fill(DEMO_PASSWORD);
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(heading(page)).toHaveText('Nothing was linked');
    await expect(page.getByText('You are going on to deals.partner.example in a moment.')).toBeVisible();
    await shot(page, 'link-success-partner', 375);
    await page.getByRole('button', { name: 'Go on now' }).click();
    await expect(page).toHaveURL(partnerAddress);
  });

  test('a request sent already shows as sent when the page is opened again, with nothing to send', async ({ page }) => {
    await page.goto('/login/email');
    await signIn(page, user('customer').email);
    await toDashboard(page);
    await withoutAccess(page);
    await page.goto('/partner/request-access?client_id=deals-partner');
    await page.getByRole('button', { name: 'Send the request' }).click();
    await expect(heading(page)).toHaveText('Request sent');
    await page.reload();
    await expect(heading(page)).toHaveText('Request sent');
    await expect(
      page.getByText('The administrator of Deals partner has received your request.', { exact: false }),
    ).toBeVisible();
    await expect(page.getByRole('button', { name: 'Send the request' })).toHaveCount(0);
    await expectNoAxeViolations(page);
  });

  for (const [access, title, text] of [
    [
      'granted',
      'You already have access to Deals partner',
      'Your Tessera account already gives Deals partner access: there is nothing to ask.',
    ],
    [
      'unavailable',
      'No administrator to ask for Deals partner',
      'Deals partner has no administrator registered with us, so no request can be sent from here.',
    ],
  ] as const) {
    test(`request-access says so before any click when the answer is '${access}', and offers no button`, async ({
      page,
    }) => {
      await page.goto('/login/email');
      await signIn(page, noah.email);
      await toDashboard(page);
      // Where the person stands, as the server answers it (server/oidc/partners.test.ts proves each answer).
      await page.route('**/api/partners/deals-partner/access-requests', (route) =>
        route.request().method() === 'GET'
          ? route.fulfill({ json: { client_id: 'deals-partner', access, requested_at: null } })
          : route.abort(),
      );
      await page.goto('/partner/request-access?client_id=deals-partner');
      await expect(heading(page)).toHaveText(title);
      await expect(page.getByText(text, { exact: false })).toBeVisible();
      await expect(page.getByText('no access to Deals partner yet', { exact: false })).toHaveCount(0);
      await expect(page.getByRole('main').getByRole('button')).toHaveCount(0);
      await expectNoAxeViolations(page);
      await shot(page, `request-${access}`, 375);
    });
  }
});
