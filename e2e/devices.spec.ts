import { expect, test } from '@playwright/test';
import { DEMO_MFA_USERS } from '../server/seed/demo.ts';
import { expectNoAxeViolations, signInWithCard } from './support.ts';

test.use({ locale: 'en-GB' });

// Sven signs in with his card's number: no mailbox to wait on. He is this walk's alone, since
// "log out everywhere" would end any other walk's session.
const sven = DEMO_MFA_USERS.find((u) => u.key === 'sessions')!;
const SVEN_CARD = '5065 0000 0000 0003';

test('two devices are listed, the other one is logged out after a yes, then everything is (1280 and 375 px)', async ({
  browser,
}) => {
  // Two browsers, two widths and their accessibility scans: more than the default on a busy machine.
  test.slow();
  // Two browsers of one person: each its own device id.
  const laptop = await browser.newContext({ locale: 'en-GB' });
  const phone = await browser.newContext({ locale: 'en-GB' });
  const here = await laptop.newPage();
  const there = await phone.newPage();
  await signInWithCard(here, sven.email, 'Sven', SVEN_CARD);
  await signInWithCard(there, sven.email, 'Sven', SVEN_CARD);

  await here.getByRole('link', { name: 'Security' }).click();
  await expect(here.getByRole('heading', { level: 1 })).toHaveText('Security settings');
  const section = here.getByRole('region', { name: 'Devices and sessions' });
  const devices = section.getByTestId('device');
  await expect(devices.first()).toBeVisible();
  expect(await devices.count()).toBeGreaterThanOrEqual(2);
  const current = section.locator('[data-testid="device"][data-current="true"]');
  await expect(current).toHaveCount(1);
  await expect(current.getByRole('heading')).toContainText('this device');
  await expect(current).toContainText('Chrome');
  await expect(current.getByTestId('device-status')).toContainText('Active');
  await expectNoAxeViolations(here);

  // The other device: the most recently seen one that is not this one.
  const other = section
    .locator('[data-testid="device"][data-current="false"]')
    .filter({ has: here.getByRole('button', { name: /^Log out: / }) })
    .first();
  await other.getByRole('button', { name: /^Log out: / }).click();
  const question = here.getByRole('alertdialog');
  await expect(question.getByRole('heading')).toHaveText('Log out this device (Computer)?');
  await expect(question.getByRole('heading')).toBeFocused();
  await expectNoAxeViolations(here);
  await question.getByRole('button', { name: 'No, stay signed in' }).click();
  await expect(here.getByRole('alertdialog')).toHaveCount(0);
  await other.getByRole('button', { name: /^Log out: / }).click();
  await here.getByRole('alertdialog').getByRole('button', { name: 'Yes, log it out' }).click();
  await expect(section.getByRole('status').filter({ hasText: 'Logged out from one device.' })).toBeVisible();
  await expect(
    section.locator('[data-testid="device"][data-current="true"]').getByTestId('device-status'),
  ).toContainText('Active');

  // The other browser finds itself signed out on its next page.
  await there.goto('/security');
  await expect(there).toHaveURL(/\/login\/email/);

  // At 375 px the section fits the width and stays accessible.
  await here.setViewportSize({ width: 375, height: 740 });
  expect(await here.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await expectNoAxeViolations(here);
  await here.setViewportSize({ width: 1280, height: 800 });

  // Everywhere: after a yes, this browser too lands signed out on the sign-in page, and stays there.
  await section.getByRole('button', { name: 'Log out everywhere' }).click();
  await expect(here.getByRole('alertdialog').getByRole('heading')).toHaveText('Log out everywhere?');
  await here.getByRole('alertdialog').getByRole('button', { name: 'Yes, log out everywhere' }).click();
  await expect(here).toHaveURL(/\/login\/email$/);
  await expect(here.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
  // What was asked is said: every device, this one too.
  await expect(here.getByRole('status').filter({ hasText: 'signed out on every device' })).toHaveText(
    'You are signed out on every device, this one included.',
  );
  // Signing in again starts afresh on the dashboard, not back at Security.
  await signInWithCard(here, sven.email, 'Sven', SVEN_CARD);
  await expect(here).toHaveURL(/\/user\/dashboard$/);

  await laptop.close();
  await phone.close();
});
