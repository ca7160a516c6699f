// Shared steps of the browser tests: the demo accounts and signing in through the real form.
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';
import { DEMO_PASSWORD, DEMO_USERS } from '../server/seed/demo.ts';

export { DEMO_PASSWORD };
export const user = (key: string) => DEMO_USERS.find((u) => u.key === key)!;

export async function signIn(page: Page, username: string, password = DEMO_PASSWORD, mode: 'email' | 'phone' = 'email') {
  if (!page.url().includes(`/login/${mode}`)) await page.goto(`/login/${mode}`);
  await page.getByLabel(mode === 'email' ? 'Email address' : 'Phone number').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

export async function expectNoAxeViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}
