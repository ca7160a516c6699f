// Shared steps of the browser tests: the demo accounts and signing in through the real form.
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';
import { DEMO_PASSWORD, DEMO_USERS } from '../server/seed/demo.ts';
import { codeIn } from '../server/testing/peers.ts';

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

/** Waits until the form's CAPTCHA has its answer ready. */
export async function captchaReady(page: Page) {
  await expect(page.getByTestId('captcha')).toContainText('Checked: you are not a robot.');
}

/** The newest code the mail or SMS peer received for a recipient, after `since` messages. */
export async function codeSentTo(recipient: string, since = 0): Promise<string> {
  const { E2E_PEERS_PORT } = await import('../playwright.config.ts');
  for (let attempt = 0; attempt < 50; attempt++) {
    const inbox = (await (await fetch(`http://127.0.0.1:${E2E_PEERS_PORT}/inbox`)).json()) as {
      mails: Array<{ to: string; raw: string }>; messages: Array<{ to: string; text: string }>;
    };
    const texts = [...inbox.mails.filter((m) => m.to === recipient).map((m) => m.raw), ...inbox.messages.filter((m) => m.to === recipient).map((m) => m.text)];
    if (texts.length > since) return codeIn(texts.at(-1)!);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no code for ${recipient}`);
}

export async function sentCount(recipient: string): Promise<number> {
  const { E2E_PEERS_PORT } = await import('../playwright.config.ts');
  const inbox = (await (await fetch(`http://127.0.0.1:${E2E_PEERS_PORT}/inbox`)).json()) as { mails: Array<{ to: string }>; messages: Array<{ to: string }> };
  return [...inbox.mails, ...inbox.messages].filter((m) => m.to === recipient).length;
}
