import { expect, test } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.ts';
import { mailsTo, signIn, toDashboard, user } from './support.ts';

test.use({ locale: 'en-GB' });

// Dina is this walk's alone: her first sign-in here is her first device.
const dina = user('devices');

test('a sign-in from a second device is mailed from the real SMTP exchange, and its link signs that device out', async ({
  browser,
}) => {
  const first = await (await browser.newContext({ locale: 'en-GB' })).newPage();
  await signIn(first, dina.email);
  await toDashboard(first);
  // The account's first device: nothing to tell.
  await first.waitForTimeout(500);
  expect(await mailsTo(dina.email)).toEqual([]);

  const second = await (await browser.newContext({ locale: 'en-GB' })).newPage();
  await signIn(second, dina.email);
  await toDashboard(second);
  await expect.poll(async () => (await mailsTo(dina.email)).length).toBe(1);
  const mail = (await mailsTo(dina.email))[0]!;
  expect(mail).toContain('New sign-in to your Tessera account');
  expect(mail).toMatch(/Device: .*Chrom/);
  // The configured origin (the server's PUBLIC_ORIGIN_BE default), the ticket in the hash.
  const link = /https?:\/\/\S+\/devices\/not-me#[\w-]+/.exec(mail)![0];
  expect(link.startsWith(`http://account.localhost:${E2E_PORT}/devices/not-me#`)).toBe(true);

  // "This wasn't me", from the first device: the second is signed out, the person chooses a new password.
  await first.goto(link);
  await expect(first).toHaveURL(/\/forgot-password\/email$/);
  await second.goto('/profile');
  await expect(second).toHaveURL(/\/login\/email$/);
});
