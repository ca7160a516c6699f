import { expect, test } from '@playwright/test';
import { expectNoAxeViolations, signIn, toDashboard, user } from './support.ts';

test.use({ locale: 'en-GB' });

test("the dashboard shows the account's card, masked, and each voucher product switches on and off and stays so", async ({
  page,
}) => {
  const emma = user('cardholder');
  await signIn(page, emma.email);
  await toDashboard(page);
  const cards = page.getByRole('region', { name: 'Your cards' });
  const card = cards.getByRole('region', { name: '•••• •••• •••• 0002' });
  await expect(card).toContainText(
    'Fiscally deductible at 2 euros per voucher, 100% exempt from social contributions.',
  );
  const gift = card.getByRole('switch', { name: /^Gift vouchers/ });
  await expect(gift).toHaveAttribute('aria-checked', 'true');
  await expectNoAxeViolations(page);

  await gift.click();
  await expect(gift).toHaveAttribute('aria-checked', 'false');
  await expect(gift).toHaveText('Inactive');
  await expect(gift).toBeEnabled();
  // What the press changed is said, and heard.
  await expect(page.getByTestId('save-notice')).toHaveText(
    'Gift vouchers are off for card •••• •••• •••• 0002: it no longer takes them until you switch them on again.',
  );
  await page.reload();
  await expect(
    page.getByRole('region', { name: '•••• •••• •••• 0002' }).getByRole('switch', { name: /^Gift vouchers/ }),
  ).toHaveAttribute('aria-checked', 'false');
  await page.setViewportSize({ width: 375, height: 740 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await expectNoAxeViolations(page);

  // Back as it was, by keyboard.
  const again = page
    .getByRole('region', { name: '•••• •••• •••• 0002' })
    .getByRole('switch', { name: /^Gift vouchers/ });
  await again.focus();
  await page.keyboard.press('Enter');
  await expect(again).toHaveAttribute('aria-checked', 'true');
});
