// Shared steps of the browser tests: the demo accounts and signing in through the real form.
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page, type Request } from '@playwright/test';
import { DEMO_PASSWORD, DEMO_USERS } from '../server/seed/demo.ts';
import { codeIn } from '../server/testing/peers.ts';

export { DEMO_PASSWORD };
export const user = (key: string) => DEMO_USERS.find((u) => u.key === key)!;

export async function signIn(
  page: Page,
  username: string,
  password = DEMO_PASSWORD,
  mode: 'email' | 'phone' = 'email',
) {
  if (!page.url().includes(`/login/${mode}`)) await page.goto(`/login/${mode}`);
  await page.getByLabel(mode === 'email' ? 'Email address' : 'Phone number').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** Signs in with the password and a code mailed to the account's address; ends on the dashboard. */
export async function signInWithEmailCode(page: Page, email: string, firstname: string) {
  const before = await sentCount(email);
  await signIn(page, email);
  await page.getByRole('button', { name: /Email a code/ }).click();
  await page.getByLabel('Security code').fill(await codeSentTo(email, before));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Hello, ${firstname}`);
}

/** Kato's demo card: his second factor is its number. */
export const KATO_CARD = '5065 0000 0000 0001';

/** Signs in with the password and the number of a benefit card; ends on the dashboard. */
export async function signInWithCard(page: Page, email: string, firstname: string, card = KATO_CARD) {
  await signIn(page, email);
  await page.getByRole('button', { name: 'Use my card' }).click();
  await page.getByLabel('Card number').fill(card);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Hello, ${firstname}`);
}

export async function expectNoAxeViolations(page: Page) {
  // Every screen has its heading: until it is there, a lazy screen is still loading, not checkable.
  await expect(page.getByRole('heading', { level: 1 }).first()).toBeAttached();
  const results = await new AxeBuilder({ page }).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

/** Waits until the form's CAPTCHA has its answer ready. */
export async function captchaReady(page: Page) {
  await expect(page.getByTestId('captcha')).toContainText('Checked: you are not a robot.');
}

/** The answer of a server that wants a robot check before it goes on; `extra` names a puzzle's level. */
export const robotCheckWanted = (extra: Record<string, unknown> = {}) => ({
  status: 400,
  contentType: 'application/json',
  body: JSON.stringify({
    code: 'captcha_required',
    message: 'Please confirm that you are not a robot.',
    captcha: true,
    ...extra,
  }),
});

/** Answers the first call to `url` as a server that wants a robot check (`extra`: its level), and lets
 * the next ones through to the real server; `seen` hears each call's request first. */
export async function wantRobotCheckOnce(
  page: Page,
  url: string,
  seen: (request: Request) => void = () => {},
  extra: Record<string, unknown> = {},
) {
  let calls = 0;
  await page.route(url, async (route) => {
    seen(route.request());
    calls += 1;
    if (calls === 1) await route.fulfill(robotCheckWanted(extra));
    else await route.continue();
  });
}

/** Holds back the requests to `url` until the function returned is called. */
export async function holdRequests(page: Page, url: string | RegExp): Promise<() => void> {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(url, async (route) => {
    await held;
    await route.continue();
  });
  return release;
}

/** Whether a message carries a code (a new-device mail, say, carries none). */
function hasCode(text: string): boolean {
  try {
    codeIn(text);
    return true;
  } catch {
    return false;
  }
}

/** The newest code the mail or SMS peer received for a recipient, after `since` messages; messages
 * without a code (a new-device mail) are passed over. */
export async function codeSentTo(recipient: string, since = 0): Promise<string> {
  const { E2E_PEERS_PORT } = await import('../playwright.config.ts');
  for (let attempt = 0; attempt < 50; attempt++) {
    const inbox = (await (await fetch(`http://127.0.0.1:${E2E_PEERS_PORT}/inbox`)).json()) as {
      mails: Array<{ to: string; raw: string }>;
      messages: Array<{ to: string; text: string }>;
    };
    const texts = [
      ...inbox.mails.filter((m) => m.to === recipient).map((m) => m.raw),
      ...inbox.messages.filter((m) => m.to === recipient).map((m) => m.text),
    ];
    const withCode = texts.slice(since).filter(hasCode);
    if (withCode.length > 0) return codeIn(withCode.at(-1)!);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no code for ${recipient}`);
}

/** The mails the SMTP peer received for a recipient, oldest first, their quoted-printable undone
 * (soft line breaks and =XX escapes), so that links and texts read as sent. */
export async function mailsTo(recipient: string): Promise<string[]> {
  const { E2E_PEERS_PORT } = await import('../playwright.config.ts');
  const inbox = (await (await fetch(`http://127.0.0.1:${E2E_PEERS_PORT}/inbox`)).json()) as {
    mails: Array<{ to: string; raw: string }>;
  };
  return inbox.mails
    .filter((m) => m.to === recipient)
    .map((m) =>
      m.raw
        .replace(/=\r?\n/g, '')
        .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    );
}

export async function sentCount(recipient: string): Promise<number> {
  const { E2E_PEERS_PORT } = await import('../playwright.config.ts');
  const inbox = (await (await fetch(`http://127.0.0.1:${E2E_PEERS_PORT}/inbox`)).json()) as {
    mails: Array<{ to: string }>;
    messages: Array<{ to: string }>;
  };
  return [...inbox.mails, ...inbox.messages].filter((m) => m.to === recipient).length;
}

/** After a sign-in with nowhere else to go, a person with several platforms (Emma, Luc) first sees
 * the website access chooser; its "Go to my account" goes on to the dashboard. Anyone else is there
 * already. */
export async function toDashboard(page: Page) {
  await page.waitForURL(/\/user\/(choose-platform|dashboard)(\?|$)/);
  if (new URL(page.url()).pathname === '/user/choose-platform') {
    await page.getByRole('main').locator('a[href="/user/dashboard"]').click();
    await page.waitForURL(/\/user\/dashboard(\?|$)/);
  }
}
