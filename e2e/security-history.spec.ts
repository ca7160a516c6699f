// The security history (/security/history): reached from the security overview, it lists the
// sign-in just made with its browser and system, counts it on the graph, and narrows the list by
// kind of event (All / Selected) and by days picked on the calendar, with the mouse or the keys.
import { expect, test, type Page } from '@playwright/test';
import { expectNoAxeViolations, signIn, toDashboard, user } from './support.ts';

test.use({ locale: 'en-GB' });

const today = () => new Date().toISOString().slice(0, 10);
const dayBefore = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

const events = (page: Page) => page.getByTestId('history-events').getByRole('listitem');
const signIns = (page: Page) => page.getByTestId('history-events').locator('[data-type="login_succeeded"]');

test('the security history lists the sign-in just made and filters it by kind and by day', async ({ page }) => {
  // Five accessibility scans and a calendar walked by keys: more than the default on a busy machine.
  test.slow();
  const claire = user('customer');
  await signIn(page, claire.email);
  await toDashboard(page);

  await page.getByTestId('user-nav').getByRole('link', { name: 'Security' }).click();
  await expect(page).toHaveURL(/\/security$/);
  await page.getByRole('link', { name: 'See your security history' }).click();
  await expect(page).toHaveURL(/\/security\/history$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Security history');
  const crumbs = page.getByRole('navigation', { name: 'Breadcrumbs' });
  await expect(crumbs.getByRole('link')).toHaveText(['Dashboard', 'Security settings']);
  await expect(crumbs.locator('[aria-current="page"]')).toHaveText('History');

  // The sign-in just made, described by the browser that made it.
  const signIn1 = signIns(page).first();
  await expect(signIn1.getByRole('heading')).toHaveText('Signed in');
  await expect(signIn1).toContainText('Linux');
  await expect(signIn1).toContainText('Computer');
  // A loopback address has no country.
  await expect(signIn1).toContainText('Unknown');
  // The graph counts it today; its table says so to a screen reader.
  const graph = page.getByTestId('history-graph');
  const lastRow = graph.locator('tbody tr').last();
  await expect(lastRow.locator('td')).not.toHaveText('0');
  // The picture has a scale (its top, half and zero) and today's bar says its count above it; the
  // top is a round number above it, so a few sign-ins do not fill the height.
  const today_ = (await lastRow.locator('td').textContent())!;
  await expect(graph.getByTestId('chart-value').last()).toHaveText(today_);
  const scale = (await graph.getByTestId('chart-scale').locator('span').allTextContents()).map(Number);
  expect(scale[2]).toBe(0);
  expect(scale[1]).toBe(scale[0]! / 2);
  expect(scale[0]).toBeGreaterThanOrEqual(Math.max(4, Number(today_)));
  await expectNoAxeViolations(page);

  // By kind: Selected starts with every kind; without sign-ins, none is listed; sign-ins alone, they are.
  const kinds = page.getByTestId('history-kinds');
  await kinds.getByRole('radio', { name: 'Selected' }).check();
  await kinds.getByRole('checkbox', { name: 'Sign-ins', exact: true }).uncheck();
  await expect(page.getByTestId('history-events').or(page.getByTestId('history-empty')).first()).toBeVisible();
  await expect(signIns(page)).toHaveCount(0);
  await expectNoAxeViolations(page);
  await kinds.getByRole('radio', { name: 'All' }).check();
  await expect(signIns(page).first()).toBeVisible();

  // By day, with the keys: To moves to yesterday, and today's sign-in leaves the list.
  const to = page.getByTestId('history-to').getByRole('button', { name: /^To / });
  await to.focus();
  await page.keyboard.press('Enter');
  const calendar = page.getByRole('dialog', { name: 'Calendar: To' });
  await expect(calendar.locator(`[data-day="${today()}"]`)).toBeFocused();
  await expectNoAxeViolations(page);
  await page.keyboard.press('ArrowLeft');
  await expect(calendar.locator(`[data-day="${dayBefore(today())}"]`)).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(calendar).toHaveCount(0);
  await expect(to).toBeFocused();
  await expect(page.getByTestId('history-empty').or(events(page).first())).toBeVisible();
  await expect(signIns(page)).toHaveCount(0);
  // The filters last as long as the tab: a reload keeps them.
  const toLabel = await to.textContent();
  await page.reload();
  await expect(page.getByTestId('history-to').getByRole('button', { name: /^To / })).toHaveText(toLabel!);
  await expect(page.getByTestId('history-empty').or(events(page).first())).toBeVisible();
  await expect(signIns(page)).toHaveCount(0);

  // Escape closes the calendar without a change; the mouse picks today again.
  await to.click();
  await expect(calendar).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(calendar).toHaveCount(0);
  await expect(to).toBeFocused();
  await to.click();
  await calendar.locator(`[data-day="${today()}"]`).click();
  await expect(signIns(page).first()).toBeVisible();

  // From, a month back by Page Up: the month shown changes with it.
  const from = page.getByTestId('history-from').getByRole('button', { name: /^From / });
  await from.click();
  const fromCalendar = page.getByRole('dialog', { name: 'Calendar: From' });
  const month = await fromCalendar.getByRole('heading').textContent();
  await page.keyboard.press('PageUp');
  await expect(fromCalendar.getByRole('heading')).not.toHaveText(month!);
  // A press elsewhere closes it without a change.
  await page.getByRole('heading', { level: 1 }).click();
  await expect(fromCalendar).toHaveCount(0);

  // On a phone the screen fits the width.
  await page.setViewportSize({ width: 375, height: 740 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await from.click();
  await expect(fromCalendar).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await expectNoAxeViolations(page);
  await page.keyboard.press('Escape');
  await expectNoAxeViolations(page);
});
