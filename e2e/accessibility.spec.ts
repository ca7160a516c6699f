import { expect, test } from '@playwright/test';
import { E2E_MAINTENANCE_PORT, E2E_PORT } from '../playwright.config.ts';
import { expectNoAxeViolations, signIn, user, toDashboard } from './support.ts';
import * as oidc from 'openid-client';
import { dealsPartner, signedInToPartner, toSignIn } from './relyingParty.ts';

test.use({ locale: 'en-GB' });

for (const path of ['/login/email', '/login/phone']) {
  test(`axe finds nothing on ${path}`, async ({ page }) => {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expectNoAxeViolations(page);
  });
}

test('axe finds nothing on the login page with an error shown', async ({ page }) => {
  await signIn(page, 'nobody@example.be', 'wrong');
  await expect(page.getByRole('alert')).toBeVisible();
  await expectNoAxeViolations(page);
});

test('axe finds nothing on the dashboard, wide and small', async ({ page }) => {
  await signIn(page, user('cardholder').email);
  await toDashboard(page);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Emma');
  await expectNoAxeViolations(page);
  await page.setViewportSize({ width: 360, height: 740 });
  await expectNoAxeViolations(page);
});

for (const width of [375, 1280]) {
  test(`axe finds nothing on a partner's consent screen, nor on its refusal (${width} px)`, async ({ page }) => {
    await page.setViewportSize({ width, height: 800 });
    await toSignIn(page, await dealsPartner(page));
    await signIn(page, user('cardholder').email);
    await expect(page.getByTestId('consenting-account')).toBeVisible();
    await expect(page.getByTestId('client-logo')).toHaveJSProperty('complete', true);
    await expectNoAxeViolations(page);
    await page.getByRole('button', { name: 'Refuse' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Access refused');
    await expectNoAxeViolations(page);
  });
}

for (const width of [375, 1280]) {
  test(`axe finds nothing on an application's sign-out, nor on its success (${width} px)`, async ({ page }) => {
    await page.setViewportSize({ width, height: 800 });
    const { idToken, config } = await signedInToPartner(page);
    await page.goto(oidc.buildEndSessionUrl(config, { id_token_hint: idToken }).href);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign out of Deals partner');
    await expect(page.getByTestId('client-logo')).toHaveJSProperty('complete', true);
    await expectNoAxeViolations(page);
    await page.getByRole('button', { name: 'Yes, sign me out of Tessera' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('You are signed out');
    await expectNoAxeViolations(page);
  });
}

test('axe finds nothing on the Luxembourg login page', async ({ page }) => {
  await page.goto(`http://account.lu.localhost:${E2E_PORT}/login/email`);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expectNoAxeViolations(page);
});

test('axe finds nothing on the maintenance page', async ({ page }) => {
  await page.goto(`http://account.localhost:${E2E_MAINTENANCE_PORT}/maintenance`);
  await expect(page.getByText('Login is unavailable at the moment. Please try again later.')).toBeVisible();
  await expectNoAxeViolations(page);
});

test('the login form works with the keyboard alone', async ({ page }) => {
  await page.goto('/login/email');
  await page.getByLabel('Email address').focus();
  await page.keyboard.type(user('cardholder').email);
  await page.keyboard.press('Tab');
  await page.keyboard.type('Tessera-demo-2026!');
  await page.keyboard.press('Enter');
  await toDashboard(page);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Emma');
});

for (const width of [1280, 375]) {
  test(`each screen names itself in the tab and takes focus, with a skip link first (${width} px)`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height: 800 });
    await page.goto('/login/email');
    await expect(page).toHaveTitle('Sign in to your Tessera account · Tessera');
    // Arriving on sign-in, the address field has focus; the first Tab stop is the skip link.
    await expect(page.getByLabel('Email address')).toBeFocused();
    await page.getByLabel('Email address').fill('someone@example.be');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await expect(page).toHaveURL(/\/forgot-password\/email$/);
    // A screen reached by a step: its first field takes focus (the address carried over), and its
    // heading names the tab.
    const heading = page.getByRole('heading', { level: 1 });
    await expect(heading).toHaveText('Forgot your password?');
    await expect(page.getByLabel('Email address')).toBeFocused();
    await expect(page.getByLabel('Email address')).toHaveValue('someone@example.be');
    await expect(page).toHaveTitle('Forgot your password? · Tessera');
    // The skip link is the first stop of the page's tab order, shown when it has focus.
    await page.goto('/login/email');
    const skip = page.getByRole('link', { name: 'Skip to the content' });
    await expect(page.locator('a[href], button, input, select, textarea').first()).toHaveText('Skip to the content');
    await skip.focus();
    await expect(skip).toBeInViewport();
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/#main$/);
  });
}

test('the tab title is in the language shown', async ({ page }) => {
  await page.goto('/login/email');
  // The app's own switch, once it has taken over the drawn screen.
  await expect(page.locator('[data-prerendered]')).toHaveCount(0);
  await page.getByLabel('Language').selectOption('fr');
  const heading = page.getByRole('heading', { level: 1 });
  await expect(heading).not.toHaveText('Sign in to your Tessera account');
  await expect(page).toHaveTitle(`${(await heading.textContent())!.trim()} · Tessera`);
});
