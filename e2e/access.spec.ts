import { expect, test } from '@playwright/test';
import * as oidc from 'openid-client';
import { DEMO_CLIENTS } from '../server/seed/demo.ts';
import { relyingParty } from './relyingParty.ts';
import { expectNoAxeViolations, signIn, user, toDashboard } from './support.ts';

test.use({ locale: 'en-GB' });

const REDIRECT_URI = DEMO_CLIENTS.find((c) => c.client_id === '17')!.redirect_uris.find((u) =>
  u.startsWith('http://'),
)!;

test('an application given access through the authorisation server is listed, and its access revoked after a yes', async ({
  page,
}) => {
  // Luc: no other walk gives him access to an application, so the list is his alone.
  const luc = user('luxembourg');
  await signIn(page, luc.email);
  await toDashboard(page);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Luc');

  // The employee area asks for access (code + PKCE, offline access) from its own page.
  const rp = await relyingParty(page, {
    clientId: '17',
    redirectUri: REDIRECT_URI,
    scope: 'openid balance offline_access',
    name: 'Employee area',
    params: { prompt: 'consent' },
  });
  await page.goto(rp.home);
  await page.getByRole('link', { name: 'Sign in with Tessera' }).click();
  const callback = await rp.callback;
  // The browser is at the application before it goes anywhere else.
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Employee area: signed in');
  // Granted, its code not yet spent: not used yet (not "not used recently").
  await page.goto('/user/access');
  await expect(page.getByRole('region', { name: 'Employee area' }).getByText('Not used yet')).toBeVisible();
  const tokens = await rp.exchange(callback);
  expect(tokens.refresh_token).toBeTruthy();

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
  // And the application's refresh token is dead.
  await expect(oidc.refreshTokenGrant(rp.config, tokens.refresh_token!)).rejects.toMatchObject({
    error: 'invalid_grant',
  });
});
