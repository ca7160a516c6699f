import { expect, test } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.ts';
import { DEMO_MFA_USERS } from '../server/seed/demo.ts';
import { holdRequests, signIn, signInWithCard, user, toDashboard } from './support.ts';

test.use({ locale: 'en-GB' });

const tiles = (page: import('@playwright/test').Page) => page.getByTestId(/^tile-/);

test('the card holder sees client area, employee area, Fridom and deals tiles on derived hosts', async ({ page }) => {
  await signIn(page, user('cardholder').email);
  await toDashboard(page);
  await expect(tiles(page)).toHaveCount(4);
  await expect(page.getByTestId('tile-client').getByRole('link')).toHaveAttribute(
    'href',
    `http://client.localhost:${E2E_PORT}/`,
  );
  await expect(page.getByTestId('tile-my').getByRole('link')).toHaveAttribute(
    'href',
    `http://my.localhost:${E2E_PORT}/`,
  );
  await expect(page.getByTestId('tile-fridom').getByRole('link')).toHaveAttribute(
    'href',
    `http://fridom.localhost:${E2E_PORT}/`,
  );
  await expect(page.getByTestId('tile-deals')).toBeVisible();
});

test('the company customer sees only the client area and deals', async ({ page }) => {
  await signIn(page, user('customer').email);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Claire');
  await expect(tiles(page)).toHaveCount(2);
  await expect(page.getByTestId('tile-client')).toBeVisible();
  await expect(page.getByTestId('tile-deals')).toBeVisible();
});

test('a registered redirect_uri is followed at once; any other is ignored', async ({ page }) => {
  await page.route('https://client.tessera.example/**', (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Client area</title>' }),
  );
  await signIn(page, user('cardholder').email);
  await toDashboard(page);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Emma');
  await page.goto(`/user/dashboard?redirect_uri=${encodeURIComponent('https://evil.example/steal')}`);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Emma');
  expect(page.url()).toContain(`localhost:${E2E_PORT}`);
  await page.goto(`/user/dashboard?redirect_uri=${encodeURIComponent('https://client.tessera.example/auth/callback')}`);
  await expect(page).toHaveURL('https://client.tessera.example/auth/callback');
});

test.describe('small screens', () => {
  test.use({ viewport: { width: 320, height: 640 } });
  test('the sidebar becomes a row of tabs', async ({ page }) => {
    await signIn(page, user('cardholder').email);
    await toDashboard(page);
    const nav = page.getByTestId('user-nav');
    await expect(nav).toBeVisible();
    expect(await nav.evaluate((el) => getComputedStyle(el).flexDirection)).toBe('row');
    await expect(page.getByRole('link', { name: 'Dashboard' })).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
  });
});

test.describe('wide screens', () => {
  test.use({ viewport: { width: 1280, height: 800 } });
  test('the user area has a sidebar', async ({ page }) => {
    await signIn(page, user('cardholder').email);
    await toDashboard(page);
    expect(await page.getByTestId('user-nav').evaluate((el) => getComputedStyle(el).flexDirection)).toBe('column');
  });
});

test('an account without a second factor is nudged to turn it on, at 1280 and 375 px; one with a factor is not', async ({
  page,
}) => {
  await signIn(page, user('cardholder').email);
  await toDashboard(page);
  const nudge = page.getByText('Protect your account with two-step verification');
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 800 });
    await expect(nudge).toBeVisible();
  }
  await page.getByRole('link', { name: 'Turn it on' }).click();
  // The methods screen is sensitive: without a second factor, the password is asked again.
  await expect(page.getByRole('heading', { level: 1 })).toHaveText("Confirm it's you");
  await page.getByRole('link', { name: 'Log out' }).click();
  await expect(page).toHaveURL(/\/login\/email$/);
  const kato = DEMO_MFA_USERS.find((u) => u.key === 'card')!;
  await signInWithCard(page, kato.email, 'Kato');
  await expect(nudge).toHaveCount(0);
});

test('on a phone the header is one compact row and every tab is in view (they wrap, in every language); on a desktop they are the sidebar', async ({
  page,
}) => {
  await signIn(page, user('customer').email);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Claire');
  await page.setViewportSize({ width: 375, height: 740 });
  const header = page.getByRole('banner');
  const row = (await header.boundingBox())!;
  expect(row.height).toBeLessThan(64);
  await expect(page.getByLabel('Language')).toBeVisible();
  const tabs = page.getByTestId('user-nav').getByRole('link');
  // (The switch's own label changes with the language.)
  const languages = page.getByRole('banner').getByRole('combobox');
  for (const language of ['en', 'fr', 'nl']) {
    await languages.selectOption(language);
    await expect(tabs).toHaveCount(5);
    for (const tab of await tabs.all()) {
      const box = (await tab.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(375 - 16);
    }
  }
  await languages.selectOption('en');
  await page.screenshot({ path: 'test-results/screens/dashboard-375.png' });
  await page.setViewportSize({ width: 1280, height: 800 });
  expect(await page.getByTestId('user-nav').evaluate((el) => getComputedStyle(el).flexDirection)).toBe('column');
  await expect(page.getByText('Signed in as Claire')).toBeVisible();
});

test('the language chosen last is the one shown, even when an earlier choice arrives after it', async ({ page }) => {
  await page.goto('/login/email');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign in to your Tessera account');
  // Dutch is chosen, then English while the Dutch strings are still on their way.
  const release = await holdRequests(page, /\/assets\/nl-[\w-]+\.js$/);
  const languages = page.getByRole('banner').getByRole('combobox');
  await languages.selectOption('nl');
  await languages.selectOption('en');
  release();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await page.waitForLoadState('networkidle');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign in to your Tessera account');
  await expect(languages).toHaveValue('en');
});
