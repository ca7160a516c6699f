import { expect, test } from '@playwright/test';
import { E2E_MAINTENANCE_PORT, E2E_PORT } from '../playwright.config.ts';
import { expectNoAxeViolations, signIn, user, toDashboard } from './support.ts';

const LU = `http://account.lu.localhost:${E2E_PORT}`;

test.describe('Belgian variant', () => {
  test.describe('with a Dutch browser', () => {
    test.use({ locale: 'nl-BE' });
    test('speaks Dutch', async ({ page }) => {
      await page.goto('/login/email');
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Log in op uw Tessera-account');
      await expect(page.locator('html')).toHaveAttribute('lang', 'nl');
    });
  });
  test.describe('with a German browser', () => {
    test.use({ locale: 'de-DE' });
    test('falls back to English and offers fr, nl, en', async ({ page }) => {
      await page.goto('/login/email');
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign in to your Tessera account');
      const options = await page
        .getByLabel('Language')
        .locator('option')
        .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
      expect(options.sort()).toEqual(['en', 'fr', 'nl']);
      await expect(page.locator('#favicon')).toHaveAttribute('href', '/favicon.svg');
    });
  });
  test.describe('language switch', () => {
    test.use({ locale: 'en-GB' });
    test('persists the choice across reloads', async ({ page }) => {
      await page.goto('/login/email');
      await page.getByLabel('Language').selectOption('fr');
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Connectez-vous à votre compte Tessera');
      await page.reload();
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Connectez-vous à votre compte Tessera');
      await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
    });
  });
});

test.describe('Luxembourg variant', () => {
  test.describe('with a German browser', () => {
    test.use({ locale: 'de-DE' });
    test('defaults to fr_LU, offers fr_LU and en_LU, and has its own favicon', async ({ page }) => {
      await page.goto(`${LU}/login/email`);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText(
        'Connectez-vous à votre compte Tessera Luxembourg',
      );
      await expect(page.locator('html')).toHaveAttribute('lang', 'fr-LU');
      const options = await page
        .getByLabel('Langue')
        .locator('option')
        .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
      expect(options.sort()).toEqual(['en_LU', 'fr_LU']);
      await expect(page.locator('#favicon')).toHaveAttribute('href', '/favicon-lu.svg');
    });
  });
  test.describe('with an English browser', () => {
    test.use({ locale: 'en-GB' });
    test('speaks en_LU and shows no deals tile', async ({ page }) => {
      // The phone sign-in hints at the Luxembourg formats.
      await page.goto(`${LU}/login/phone`);
      await expect(page.getByLabel('Phone number')).toHaveAccessibleDescription(
        'For example 621 123 456, or with the country code: +352 621 123 456.',
      );
      await page.goto(`${LU}/login/email`);
      await expect(page.locator('html')).toHaveAttribute('lang', 'en-LU');
      await signIn(page, user('luxembourg').email);
      await toDashboard(page);
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Luc');
      await expect(page.getByTestId('tile-my')).toBeVisible();
      await expect(page.getByTestId('tile-fridom')).toBeVisible();
      await expect(page.getByTestId('tile-deals')).toHaveCount(0);
      await expect(page.getByTestId('tile-client')).toHaveCount(0);
    });
  });
});

test('maintenance: the API answers 503 and the app shows the page in three languages, without top bar', async ({
  page,
}) => {
  await page.goto(`http://account.localhost:${E2E_MAINTENANCE_PORT}/login/email`);
  await expect(page).toHaveURL(/\/maintenance$/);
  await expect(page.getByText('Inloggen is momenteel niet mogelijk. Probeer het later opnieuw.')).toBeVisible();
  await expect(
    page.getByText('La connexion est actuellement indisponible. Veuillez réessayer plus tard.'),
  ).toBeVisible();
  await expect(page.getByText('Login is unavailable at the moment. Please try again later.')).toBeVisible();
  await expect(page.getByRole('banner')).toHaveCount(0);
  await page.goto(`http://account.localhost:${E2E_MAINTENANCE_PORT}/user/dashboard`);
  await expect(page).toHaveURL(/\/maintenance$/);
});

test('maintenance: the brand, French first on the Luxembourg host, and a way back once the API answers (375 px)', async ({
  page,
}) => {
  await page.setViewportSize({ width: 375, height: 740 });
  await page.goto(`http://account.localhost:${E2E_MAINTENANCE_PORT}/login/email`);
  await expect(page).toHaveURL(/\/maintenance$/);
  await expect(page.getByRole('main').getByText('Tessera', { exact: true })).toBeVisible();
  await expect(page.locator('main [lang] h2')).toHaveText(['Onderhoud', 'Maintenance', 'Maintenance']);
  await expect(page.locator('main [lang]').first()).toHaveAttribute('lang', 'nl');
  // The three words of the button read apart, spaces and all.
  await expect(page.getByRole('button', { name: 'Opnieuw proberen · Réessayer · Try again' })).toBeVisible();
  await expect(page.getByText('This page tries again by itself every minute.')).toBeVisible();
  // The API comes back (staged here: this server stays in maintenance): "Try again" starts the app afresh.
  const config = await (
    await page.request.get(`http://127.0.0.1:${E2E_PORT}/api/config`, {
      headers: { host: `account.localhost:${E2E_PORT}`, 'x-device-id': 'maintenance-e2e-01' },
    })
  ).text();
  await page.route('**/api/config', (route) =>
    route.fulfill({ status: 200, contentType: 'application/json', body: config }),
  );
  await page.route('**/api/user', (route) =>
    route.fulfill({
      status: 401,
      contentType: 'application/json',
      body: JSON.stringify({ code: 'unauthorized', message: '' }),
    }),
  );
  await page.getByRole('button', { name: /Try again/ }).click();
  await expect(page).toHaveURL(/\/login\/email$/);

  await page.unrouteAll();
  await page.goto(`http://account.lu.localhost:${E2E_MAINTENANCE_PORT}/login/email`);
  await expect(page).toHaveURL(/\/maintenance$/);
  await expect(page.locator('main [lang]').first()).toHaveAttribute('lang', 'fr');
  await expect(page.locator('main [lang] h2').first()).toHaveText('Maintenance');
  await expectNoAxeViolations(page);
});

test('each host looks like itself: the Luxembourg host has its own accent and favicon, at 1280 and 375 px', async ({
  page,
}) => {
  const accent = async (host: string) => {
    await page.goto(`http://${host}:${E2E_PORT}/login/email`);
    const button = page.getByRole('button', { name: /^(Sign in|Se connecter)$/ });
    await expect(button).toBeVisible();
    // The app may take the drawn screen over between the look-up and the read (a detached button
    // reads as no colour): read until the button in the page answers.
    let colour = '';
    await expect
      .poll(
        async () =>
          (colour = await button
            .evaluate((el) => (el.isConnected ? getComputedStyle(el).backgroundColor : ''))
            .catch(() => '')),
      )
      .not.toBe('');
    return {
      colour,
      favicon: await page.locator('#favicon').getAttribute('href'),
    };
  };
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 800 });
    const be = await accent('account.localhost');
    const lu = await accent('account.lu.localhost');
    expect(be.favicon).toBe('/favicon.svg');
    expect(lu.favicon).toBe('/favicon-lu.svg');
    expect(lu.colour).not.toBe(be.colour);
    await expectNoAxeViolations(page);
  }
});

test.describe('the public pages', () => {
  test.use({ locale: 'en-GB' });
  test("carry the navbar's Log in and Register, the footer's links and the brochure, each variant its own (spec §1)", async ({
    page,
  }) => {
    await page.goto('/login/email');
    const navbar = page.getByRole('navigation', { name: 'Main' });
    await expect(navbar.getByRole('link', { name: 'Log in' })).toHaveAttribute('href', '/login/email');
    await expect(navbar.getByRole('link', { name: 'Register' })).toHaveAttribute('href', '/onboarding');
    const footer = page.getByRole('contentinfo');
    for (const [name, href] of [
      ['Blog', 'https://www.tessera.example/blog'],
      ['Help', 'https://help.tessera.example/'],
      ['Tessera website', 'https://www.tessera.example/'],
      ['Privacy', 'https://www.tessera.example/privacy'],
    ])
      await expect(footer.getByRole('link', { name, exact: true })).toHaveAttribute('href', href);
    const brochure = page.getByRole('region', { name: 'Meal vouchers for your company' });
    await expect(brochure.getByRole('link', { name: 'Download the brochure (PDF)' })).toHaveAttribute(
      'href',
      'https://www.tessera.example/brochure.pdf',
    );
    // Luxembourg's brochure speaks of its own rules; the rest of its English is Belgium's.
    await page.goto(`${LU}/login/email`);
    await page.getByRole('combobox', { name: 'Language' }).selectOption({ label: 'English' });
    await expect(
      page.getByRole('heading', { level: 2, name: 'Meal vouchers for your company in Luxembourg' }),
    ).toBeVisible();
    await expect(page.getByText('Tax-advantaged meal vouchers under Luxembourg rules.')).toBeVisible();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign in to your Tessera Luxembourg account');
  });

  test('Security links to how the company protects personal data (spec §2)', async ({ page }) => {
    await signIn(page, user('cardholder').email);
    await toDashboard(page);
    await page.goto('/security');
    await expect(page.getByRole('link', { name: 'How we protect your personal data' })).toHaveAttribute(
      'href',
      'https://www.tessera.example/privacy',
    );
  });
});
