// A code that does not arrive goes another way, and the code screen says so: WhatsApp fails at the
// portal's own SMS provider, the same code comes by SMS, and the screen names both ways. A phone's
// code can be sent another way from its screen (a call instead of an SMS). A forgotten password's
// screen says nothing of the way its code went, and never asks. A portal of its own, with a local
// SMS provider and mail server, at 375 px.
import { expect, test, type Page } from '@playwright/test';
import { DEMO_MFA_USERS, DEMO_PASSWORD } from '../server/seed/demo.ts';
import { codeIn, startSmsProvider, startSmtp } from '../server/testing/peers.ts';
import { ownPortal, type OwnPortal } from './ownPortal.ts';
import { expectNoAxeViolations } from './support.ts';

test.use({ locale: 'en-GB', viewport: { width: 375, height: 812 } });
// One server, one persona: the tests one after the other.
test.describe.configure({ mode: 'serial' });

const mila = DEMO_MFA_USERS.find((u) => u.key === 'mfa')!;

let portal: OwnPortal;
let provider: Awaited<ReturnType<typeof startSmsProvider>>;
let smtp: Awaited<ReturnType<typeof startSmtp>>;

test.beforeAll(async () => {
  [provider, smtp] = await Promise.all([startSmsProvider(), startSmtp()]);
  portal = await ownPortal('delivery', { SMS_PROVIDERS: `local=${provider.url}`, SMTP_URL: smtp.url });
});

test.afterAll(async () => {
  await portal?.stop();
  await Promise.all([provider?.stop(), smtp?.stop()]);
});

test.beforeEach(() => {
  provider.failingChannels.clear();
  provider.messages.length = 0;
  provider.requests.length = 0;
});

/** Mila's password, up to the choice of her second factor. */
async function toMethodChoice(page: Page) {
  await page.goto(`${portal.base}/login/email`);
  await page.getByLabel('Email address').fill(mila.email);
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText("Verify it's you");
}

/** The paths of the browser's asks of how a code is getting there. */
function deliveryAsks(page: Page) {
  const asked: string[] = [];
  page.on('request', (request) => {
    const { pathname } = new URL(request.url());
    if (/^\/api\/codes\/.+\/delivery$/.test(pathname)) asked.push(pathname);
  });
  return asked;
}

test('a WhatsApp code that does not arrive comes by SMS, and the code screen says so', async ({ page }) => {
  provider.failingChannels.add('whatsapp');
  const asked = deliveryAsks(page);
  await toMethodChoice(page);
  await page.getByRole('button', { name: /on WhatsApp/ }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Check WhatsApp');
  await expect.poll(() => provider.messages.length).toBe(1);
  expect(provider.requests.map((m) => m.channel)).toEqual(['whatsapp', 'sms']);
  expect(provider.messages[0]).toMatchObject({ channel: 'sms', to: mila.phone });
  // Heard by the next ask (every 5 s), in a polite live region.
  const notice = page.getByTestId('code-delivery');
  await expect(notice).toHaveText('We sent it by SMS because WhatsApp did not reach you.', { timeout: 15_000 });
  await expect(notice).toHaveAttribute('aria-live', 'polite');
  expect(asked.length).toBeGreaterThan(0);
  // The screen now speaks of the way the code went.
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Check your text messages');
  await expectNoAxeViolations(page);
  await page.screenshot({ path: 'test-reports/screens/delivery-fell-back-375.png', fullPage: true });
  await page.getByLabel('Security code').fill(codeIn(provider.messages[0]!.text));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Hello, ${mila.firstname}`);
});

test("a phone's code is sent another way from its screen: a call instead of the SMS", async ({ page }) => {
  await toMethodChoice(page);
  await page.getByRole('button', { name: /^Text a code to/ }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Check your text messages');
  await expect.poll(() => provider.messages.map((m) => m.channel)).toEqual(['sms']);
  // Nothing went another way: nothing is said of it.
  await expect(page.getByTestId('code-delivery')).toBeEmpty();
  await page.getByText('Send it another way').click();
  const call = page.getByRole('button', { name: /^Call .* with a code$/ });
  // The same phone's other ways, not the one the code went; a new send waits as a new code does.
  await expect(page.getByRole('button', { name: /on WhatsApp/ })).toBeVisible();
  await expect(page.getByRole('button', { name: /^Text a code to/ })).toHaveCount(0);
  await expect(call).toBeDisabled();
  await expect(page.getByText(/you can ask for a new one in/)).toBeVisible();
  await expectNoAxeViolations(page);
  await page.screenshot({ path: 'test-reports/screens/delivery-other-way-375.png', fullPage: true });
  await expect(call).toBeEnabled({ timeout: 40_000 });
  await call.click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Answer your phone');
  await expect.poll(() => provider.messages.map((m) => m.channel)).toEqual(['sms', 'call']);
  expect(provider.messages[1]!.to).toBe(mila.phone);
  await page.getByLabel('Security code').fill(codeIn(provider.messages[1]!.text));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Hello, ${mila.firstname}`);
});

test("a forgotten password's code by WhatsApp comes by SMS, and its screen says nothing of it nor asks", async ({
  page,
}) => {
  provider.failingChannels.add('whatsapp');
  const asked = deliveryAsks(page);
  // The page's timers run when the test says: as long as a sign-in's code screen takes to ask thrice.
  await page.clock.install();
  await page.goto(`${portal.base}/forgot-password/phone`);
  await page.getByLabel('Phone number').fill('0470 22 22 22');
  await page.getByLabel('WhatsApp').check();
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await expect(
    page.getByText('If an account uses 0470 22 22 22, we sent it an 8-digit code on WhatsApp.'),
  ).toBeVisible();
  await expect.poll(() => provider.messages.map((m) => m.channel)).toEqual(['sms']);
  await page.clock.runFor(16_000);
  await expect(page.getByTestId('code-delivery')).toHaveCount(0);
  await expect(page.getByText(/did not reach you/)).toHaveCount(0);
  expect(asked).toEqual([]);
  await page.screenshot({ path: 'test-reports/screens/delivery-reset-silent-375.png', fullPage: true });
});
