// The notifications settings (/notifications) from the sidebar: the marketing preferences, changed,
// saved and still there after a reload; the security alerts listed with why; axe, at 1280 and 375 px.
import { expect, test } from '@playwright/test';
import { expectNoAxeViolations, signIn, toDashboard, user } from './support.ts';

test.use({ locale: 'en-GB' });

const claire = user('customer');

test('the marketing preferences are changed from Notifications, and the security alerts say why they always come', async ({
  page,
}) => {
  await signIn(page, claire.email);
  await toDashboard(page);
  await page.getByTestId('user-nav').getByRole('link', { name: 'Notifications' }).click();
  await expect(page).toHaveURL(/\/notifications$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Notifications');
  const sms = page.getByLabel('News and offers by SMS');
  await expect(sms).not.toBeChecked();
  await expect(page.getByTestId('security-alerts')).toContainText('Your password was changed');
  await expect(page.getByText('We always send these, whatever your preferences', { exact: false })).toBeVisible();
  await expectNoAxeViolations(page);

  // The save's notice has its live region on the screen before it speaks, so it is heard.
  const notice = page.getByTestId('save-notice');
  await expect(notice).toHaveAttribute('role', 'status');
  await expect(notice).toBeEmpty();
  await sms.check();
  await page.getByRole('button', { name: 'Save my preferences' }).click();
  await expect(notice).toHaveText('Your preferences were saved.');
  await page.reload();
  await expect(page.getByLabel('News and offers by SMS')).toBeChecked();

  await page.setViewportSize({ width: 375, height: 812 });
  await page.reload();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Notifications');
  // On a phone the tabs wrap: the current one, the last, is in view.
  const current = page.getByTestId('user-nav').getByRole('link', { name: 'Notifications' });
  await expect
    .poll(async () => (await current.boundingBox())!.x + (await current.boundingBox())!.width)
    .toBeLessThanOrEqual(375 - 16);
  await expectNoAxeViolations(page);
  await page.screenshot({ path: 'test-results/screens/notifications-375.png', fullPage: true });
  // As it was, for whoever signs in as Claire next.
  await page.getByLabel('News and offers by SMS').uncheck();
  await page.getByRole('button', { name: 'Save my preferences' }).click();
  await expect(page.getByText('Your preferences were saved.')).toBeVisible();
});
