import { expect, test } from '@playwright/test';
import { E2E_MAINTENANCE_PORT, E2E_PORT } from '../playwright.config.ts';
import { expectNoAxeViolations, signIn, user } from './support.ts';

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
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Emma');
  await expectNoAxeViolations(page);
  await page.setViewportSize({ width: 360, height: 740 });
  await expectNoAxeViolations(page);
});

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
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Emma');
});
