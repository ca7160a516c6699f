// An application's sign-out (RP-initiated logout) on our own screens: the relying party sends the
// browser to the end-session endpoint, our confirmation names it and asks whether to sign out of
// Tessera too; "yes" ends the Tessera session, "no" keeps it; both end on our success screen (the
// demo partner registers no post-logout address).
import { expect, test, type Page } from '@playwright/test';
import * as oidc from 'openid-client';
import { ISSUER, signedInToPartner } from './relyingParty.ts';
import { expectNoAxeViolations, toDashboard } from './support.ts';

test.use({ locale: 'en-GB' });

const portal = new URL(ISSUER).origin;

/** The portal in French from now on, as its language switch would leave it. */
async function inFrench(page: Page) {
  await page.goto(`${portal}/logout/done`);
  await page.evaluate(() => localStorage.setItem('language', 'fr'));
}

const tesseraCookie = async (page: Page) =>
  (await page.context().cookies(portal)).find((cookie) => cookie.name === 'tessera_token');

for (const width of [375, 1280]) {
  test(`the partner's sign-out asks on our screen, naming it in French, and "yes" ends the Tessera session (${width} px)`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height: 800 });
    const { idToken, config } = await signedInToPartner(page);
    await inFrench(page);
    await page.goto(oidc.buildEndSessionUrl(config, { id_token_hint: idToken }).href);

    await expect(page).toHaveURL(/\/logout\/confirm\?ref=[\w-]{43}$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Vous déconnecter de Partenaire avantages');
    await expect(page.getByText('Partenaire avantages vous déconnecte.')).toBeVisible();
    await expect(page.getByTestId('client-logo')).toHaveJSProperty('complete', true);
    await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `test-reports/screens/app-logout-confirm-${width}.png`, fullPage: true });
    expect(await tesseraCookie(page)).toBeDefined();

    await page.getByRole('button', { name: 'Oui, me déconnecter de Tessera' }).click();
    await expect(page).toHaveURL(`${portal}/logout/done`);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Vous êtes déconnecté');
    await expect(page.getByText('Vous êtes déconnecté de Tessera et des applications')).toBeVisible();
    await expectNoAxeViolations(page);
    await page.screenshot({ path: `test-reports/screens/app-logout-done-${width}.png`, fullPage: true });
    // The Tessera session is over: its cookie is gone, and the dashboard asks to sign in.
    expect(await tesseraCookie(page)).toBeUndefined();
    await page.goto('/user/dashboard');
    await expect(page).toHaveURL(/\/login\/email/);
  });
}

test('"no" on the partner\'s sign-out keeps the Tessera session, and says so (375 px)', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 800 });
  const { idToken, config } = await signedInToPartner(page);
  await page.goto(oidc.buildEndSessionUrl(config, { id_token_hint: idToken }).href);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign out of Deals partner');
  // One above the other, each the card's whole width.
  const yes = (await page.getByRole('button', { name: 'Yes, sign me out of Tessera' }).boundingBox())!;
  const no = (await page.getByRole('button', { name: 'No, stay signed in to Tessera' }).boundingBox())!;
  expect([yes.width, no.x, no.y > yes.y + yes.height]).toEqual([no.width, yes.x, true]);
  await page.getByRole('button', { name: 'No, stay signed in to Tessera' }).click();

  await expect(page).toHaveURL(`${portal}/logout/done?client_id=deals-partner`);
  await expect(
    page.getByText('You are signed out of the application. You are still signed in to Tessera.'),
  ).toBeVisible();
  await page.screenshot({ path: 'test-reports/screens/app-logout-stayed-375.png', fullPage: true });
  expect(await tesseraCookie(page)).toBeDefined();
  await page.goto('/user/dashboard');
  await toDashboard(page);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Emma');
});

test('a sign-out request that is gone says so, with the way home', async ({ page }) => {
  await page.goto(`/logout/confirm?ref=${'x'.repeat(43)}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('This sign-out is no longer valid');
  await expect(page.getByRole('link', { name: 'Go to the home page' })).toBeVisible();
  await expectNoAxeViolations(page);
});
