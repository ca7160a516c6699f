import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { expect, test } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.ts';
import { DEMO_CLIENTS } from '../server/seed/demo.ts';
import { expectNoAxeViolations, signIn, user, toDashboard } from './support.ts';

test.use({ locale: 'en-GB' });

const REDIRECT_URI = DEMO_CLIENTS.find((c) => c.client_id === '17')!.redirect_uris.find((u) => u.startsWith('http://'))!;

/** POSTs a form to the authorisation server's token endpoint as a client's back end would; gives the status. */
function tokenRequest(form: URLSearchParams): Promise<number> {
  return new Promise((resolve, reject) => {
    const body = form.toString();
    const request = httpRequest({
      host: '127.0.0.1', port: E2E_PORT, path: '/oidc/token', method: 'POST',
      headers: { host: `account.localhost:${E2E_PORT}`, 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) },
    }, (response) => { response.resume(); response.on('end', () => resolve(response.statusCode ?? 0)); });
    request.on('error', reject);
    request.end(body);
  });
}

test('an application given access through the authorisation server is listed, and its access revoked after a yes', async ({ page }) => {
  const emma = user('cardholder');
  await signIn(page, emma.email);
  await toDashboard(page);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Emma');

  // The employee area asks for access with code + PKCE; the browser comes back to its redirect URI
  // with a code (nothing answers there: the request is enough).
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URLSearchParams({
    client_id: '17', redirect_uri: REDIRECT_URI, response_type: 'code', scope: 'openid balance offline_access', state: 'e2e', prompt: 'consent',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
  });
  const tab = await page.context().newPage();
  const [back] = await Promise.all([
    tab.waitForRequest((request) => request.url().startsWith(`${REDIRECT_URI}?`)),
    tab.goto(`/oidc/auth?${authorize}`).catch(() => null),
  ]);
  const code = new URL(back.url()).searchParams.get('code')!;
  await tab.close();
  // The application spends the code at the token endpoint, from its back end (Node cannot resolve
  // *.localhost: the issuer's host goes in the Host header).
  const exchanged = await tokenRequest(new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: '17', code_verifier: verifier }));
  expect(exchanged).toBe(200);

  await page.goto('/user/dashboard');
  await page.getByRole('link', { name: 'Access' }).click();
  await expect(page).toHaveURL(/\/user\/access$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Applications with access');
  const card = page.getByRole('region', { name: 'Employee area' });
  await expect(card.getByRole('listitem')).toHaveText(['See your card balances', 'Keep access while you are away']);
  const year = String(new Date().getFullYear());
  await expect(card.getByText(/^Access given on /)).toContainText(year);
  await expect(card.getByText(/Last used on /)).toContainText(year);
  await expectNoAxeViolations(page);
  // On a phone the cards fit the width.
  await page.setViewportSize({ width: 360, height: 740 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await expectNoAxeViolations(page);
  await page.setViewportSize({ width: 1280, height: 800 });

  // No changes nothing; focus is on the question.
  await card.getByRole('button', { name: 'Revoke access for Employee area' }).click();
  const question = page.getByRole('alertdialog');
  await expect(question.getByRole('heading')).toHaveText('Revoke access for Employee area?');
  await expect(question.getByRole('heading')).toBeFocused();
  await expectNoAxeViolations(page);
  await question.getByRole('button', { name: 'No, keep access' }).click();
  await expect(page.getByRole('alertdialog')).toHaveCount(0);
  await expect(card.getByRole('button', { name: 'Revoke access for Employee area' })).toBeFocused();

  await card.getByRole('button', { name: 'Revoke access for Employee area' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Yes, revoke access' }).click();
  const notice = page.getByRole('status').filter({ hasText: 'Access revoked.' });
  await expect(notice).toHaveText('Access revoked.');
  await expect(notice.locator('..')).toBeFocused();
  await expect(page.getByTestId('access-empty')).toHaveText('No application has access to your account.');
  await expectNoAxeViolations(page);

  // A reload reads the server's list again: still nothing.
  await page.reload();
  await expect(page.getByTestId('access-empty')).toBeVisible();
});
