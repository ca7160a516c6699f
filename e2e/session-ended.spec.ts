// A session ended anywhere leads to sign-in with a notice, from any screen and any failed call:
// another tab's sign-out, expiry, revocation.
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.ts';
import { DEMO_MFA_USERS } from '../server/seed/demo.ts';
import { signIn, signInWithEmailCode, user, toDashboard } from './support.ts';

test.use({ locale: 'en-GB' });

const NOTICE = 'Your session has ended. Please sign in again.';

/** Ends the page's session on the server, as an expiry or a revocation would: the browser keeps its cookie. */
async function revoke(page: Page, request: APIRequestContext) {
  const token = (await page.context().cookies()).find((c) => c.name === 'tessera_token')!.value;
  const answer = await request.delete(`http://127.0.0.1:${E2E_PORT}/api/token`, {
    headers: { authorization: `Bearer ${token}`, 'x-device-id': 'e2e-device-0001' },
  });
  expect(answer.status()).toBe(204);
}

test('signing out in one tab takes the other to sign-in with the notice, without a reload', async ({ context }) => {
  const first = await context.newPage();
  await signIn(first, user('cardholder').email);
  await toDashboard(first);
  await expect(first.getByRole('heading', { level: 1 })).toHaveText('Hello, Emma');
  const second = await context.newPage();
  await second.goto('/security');
  await expect(second.getByRole('heading', { level: 1 })).toHaveText('Security settings');
  await second.evaluate(() => {
    (window as { kept?: boolean }).kept = true;
  });

  await first.getByRole('link', { name: 'Log out' }).click();
  await expect(first).toHaveURL(/\/login\/email$/);
  await expect(first.getByText(NOTICE)).toHaveCount(0);

  await expect(second).toHaveURL(/\/login\/email$/);
  await expect(second.getByRole('status')).toHaveText(NOTICE);
  await expect(second.getByText('Hello, Emma')).toHaveCount(0);
  expect(await second.evaluate(() => (window as { kept?: boolean }).kept)).toBe(true);
  // Signing in again returns to the screen the session ended on.
  await signIn(second, user('cardholder').email);
  await expect(second).toHaveURL(/\/security$/);
  await expect(second.getByRole('heading', { level: 1 })).toHaveText('Security settings');
});

test('a session revoked on the server turns the next call into sign-in with the notice, not an error', async ({
  page,
  request,
}) => {
  // Kato's email: the other tests sign him in with his card, and a challenge replaces the last one of its method.
  const kato = DEMO_MFA_USERS.find((u) => u.key === 'card')!;
  await signInWithEmailCode(page, kato.email, 'Kato');
  await page.goto('/security/mfa-edit');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Verification methods');

  await revoke(page, request);
  await page.getByRole('button', { name: /Delete: Email/ }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Yes, delete it' }).click();
  await expect(page).toHaveURL(/\/login\/email$/);
  await expect(page.getByRole('status')).toHaveText(NOTICE);
  await expect(page.getByRole('alert')).toHaveCount(0);
  expect(await page.evaluate(() => localStorage.getItem('account'))).toBeNull();
});

test('a session that ended while the page was away shows the notice on the next visit', async ({ page, request }) => {
  await signIn(page, user('customer').email);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Claire');
  // Away: nothing of the dashboard still on its way (a call answered 401 after the revocation would
  // end the session on this visit, not the next).
  await page.waitForLoadState('networkidle');
  await revoke(page, request);
  await page.reload();
  await expect(page).toHaveURL(/\/login\/email$/);
  await expect(page.getByRole('status')).toHaveText(NOTICE);
  await signIn(page, user('customer').email);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Claire');
});
