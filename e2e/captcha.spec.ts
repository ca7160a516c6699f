// The CAPTCHA widget's failures (spec §8) in a real browser, and that a form still works once the
// widget recovers. The server's side (required, single use, expiry) is tested in server/captcha.
import { request as httpRequest } from 'node:http';
import { expect, test } from '@playwright/test';
import { E2E_PORT } from '../playwright.config.ts';
import {
  DEMO_PASSWORD,
  captchaReady,
  expectNoAxeViolations,
  holdRequests,
  robotCheckWanted,
  signIn,
  user,
  wantRobotCheckOnce,
} from './support.ts';

test.use({ locale: 'en-GB' });

test('the challenge cannot be fetched: the widget says so, the form says so, and a retry recovers', async ({
  page,
}) => {
  await page.route('**/api/captcha/challenge', (route) => route.fulfill({ status: 503, body: '{}' }));
  await page.goto('/forgot-password/email');
  const widget = page.getByTestId('captcha');
  await expect(widget.getByRole('alert')).toHaveText(
    'The CAPTCHA is not available on the server side. Please try again later.',
  );
  await expectNoAxeViolations(page);
  await page.getByLabel('Email address').fill('nobody@example.be');
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await expect(page).toHaveURL(/\/forgot-password\/email$/);
  await page.unroute('**/api/captcha/challenge');
  await widget.getByRole('button', { name: 'Try again' }).click();
  await captchaReady(page);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await expect(page).toHaveURL(/\/forgot-password-sent$/);
});

test('the solver script cannot load', async ({ page }) => {
  await page.route(/\/assets\/altcha-[^/]*\.js$/, (route) => route.abort());
  await page.goto('/forgot-username');
  await expect(page.getByTestId('captcha').getByRole('alert')).toHaveText(
    'The CAPTCHA script failed to load. Check your connection and try again.',
  );
});

test('the browser window has no WebCrypto', async ({ page }) => {
  await page.addInitScript(() => Object.defineProperty(globalThis.crypto, 'subtle', { value: undefined }));
  await page.goto('/forgot-username');
  await expect(page.getByTestId('captcha').getByRole('alert')).toHaveText(
    'The CAPTCHA is not available in this browser window.',
  );
});

test('a form sent before the CAPTCHA is ready says it is not loaded, and goes through once it is', async ({ page }) => {
  const release = await holdRequests(page, '**/api/captcha/challenge');
  await page.goto('/forgot-username');
  await page.getByLabel('Card number (16 digits)').fill('5065 0000 0000 0002');
  await page.getByRole('button', { name: 'Find my username' }).click();
  await expect(page.getByRole('alert').first()).toHaveText('The CAPTCHA is not loaded yet. Please wait a moment.');
  release();
  await captchaReady(page);
  await page.getByRole('button', { name: 'Find my username' }).click();
  await expect(page).toHaveURL(/\/forgot-username-response$/);
});

// A password manager fills and submits at once; the server then wants a robot check (after earlier
// failures from this address). Its answer is staged once here, so other tests' accounts keep
// their counters; the rest is the real server.
for (const width of [1280, 375])
  test(`a sign-in refused for want of a robot check keeps the password and goes again by itself once solved (${width} px)`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height: 800 });
    const sent: Array<Record<string, unknown>> = [];
    await wantRobotCheckOnce(page, '**/api/token', (request) => {
      sent.push(request.postDataJSON() as Record<string, unknown>);
    });
    const claire = user('customer');
    await signIn(page, claire.email);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Claire');
    expect(sent).toHaveLength(2);
    expect(sent[1]).toMatchObject({ username: claire.email, password: DEMO_PASSWORD });
    expect(typeof sent[1]!.captcha).toBe('string');
  });

test('while the robot check is solved, the form says what happens and nothing contradicts it', async ({ page }) => {
  const release = await holdRequests(page, '**/api/captcha/challenge');
  await page.route('**/api/token', (route) => route.fulfill(robotCheckWanted({ message: '' })));
  await signIn(page, 'someone@example.be', 'typed-by-a-manager');
  await expect(page.getByText('One more check that you are not a robot, then we sign you in.')).toBeVisible();
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(page.getByLabel('Password', { exact: true })).toHaveValue('typed-by-a-manager');
  await expectNoAxeViolations(page);
  release();
  // Refused again after the automatic attempt: now it is said, once, and the password still stays.
  await expect(page.getByRole('alert')).toHaveText('Please confirm that you are not a robot.');
  await expect(page.getByLabel('Password', { exact: true })).toHaveValue('typed-by-a-manager');
});

/** The level of the challenge a solution was made for (signed into its `data`). */
const levelOf = (solution: string) =>
  (
    JSON.parse(Buffer.from(solution, 'base64').toString()) as {
      challenge: { parameters: { data?: { level?: number } } };
    }
  ).challenge.parameters.data?.level ?? 0;

// Past a card number's ceiling of wrong codes (server/onboarding/ceiling.test.ts) the server names a
// harder puzzle. The first answer is staged here, so that no card's counters are spent; the rest is
// the real server, which takes the harder solution.
test('the card step asked for a harder puzzle solves one at that level and sends it', async ({ page }) => {
  const sent: Array<Record<string, unknown>> = [];
  const asked: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/api/captcha/challenge')) asked.push(new URL(request.url()).search);
  });
  await wantRobotCheckOnce(
    page,
    '**/api/onboarding/card',
    (request) => {
      sent.push(request.postDataJSON() as Record<string, unknown>);
    },
    { captcha_level: 1 },
  );
  await page.goto('/onboarding');
  await page.getByRole('button', { name: /I received my card/ }).click();
  await page.getByLabel('Card number (16 digits)').fill('5065 0000 0000 1003');
  await page.getByLabel('Activation code').fill('999999');
  await captchaReady(page);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('alert').last()).toHaveText('Please confirm that you are not a robot.');
  await captchaReady(page);
  // The widget's next one (the forms' own) was on its way; the refusal's level started a new one.
  expect(asked.at(-1)).toBe('?level=1');
  expect(asked.slice(0, -1).every((query) => query === '')).toBe(true);
  await page.getByRole('button', { name: 'Continue' }).click();
  // The real server checked the harder solution, then the (wrong) code.
  await expect(page.getByRole('alert').last()).toHaveText('Your activation code is invalid.');
  expect(sent.map((body) => levelOf(body.captcha as string))).toEqual([0, 1]);
});

// Past an account's ceiling of wrong codes the server wants a puzzle with every code (the answer
// says `captcha: true` and its level): the code form shows the widget and sends its solution in
// the X-Captcha header. Staged once, on a code nobody was sent (an unknown address).
test('a code form asked for a puzzle shows it at the level named and sends its solution with the code', async ({
  page,
}) => {
  const headers: Array<string | undefined> = [];
  await wantRobotCheckOnce(
    page,
    '**/api/user/forgot-password/verify',
    (request) => {
      headers.push(request.headers()['x-captcha']);
    },
    { captcha_level: 2 },
  );
  await page.goto('/forgot-password/email');
  await page.getByLabel('Email address').fill('nobody.with.a.puzzle@example.be');
  await captchaReady(page);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await expect(page).toHaveURL(/\/forgot-password-sent$/);
  const form = page.locator('form').filter({ has: page.getByLabel('Security code') });
  await expect(form.getByTestId('captcha')).toHaveCount(0);
  await page.getByLabel('Security code').fill('12345678');
  await expect(form.getByTestId('captcha')).toContainText('Checked: you are not a robot.');
  await expectNoAxeViolations(page);
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByRole('alert').first()).toHaveText('Your code is invalid, try again.');
  expect(headers[0]).toBeUndefined();
  expect(levelOf(headers[1]!)).toBe(2);
});

/** A stranger's wrong password at the sign-in, sent from a loopback address of its own (Linux routes
 * all of 127.0.0.0/8 to this machine, and the server counts each address apart): the answer's body. */
function strangerSignIn(username: string, from: string): Promise<Record<string, unknown>> {
  const body = JSON.stringify({ username, password: `a-guess-from-${from}` });
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      {
        host: '127.0.0.1',
        port: E2E_PORT,
        path: '/api/token',
        method: 'POST',
        localAddress: from,
        headers: {
          host: `account.localhost:${E2E_PORT}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-device-id': `stranger-${from.replaceAll('.', '-')}`,
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => resolve(JSON.parse(text) as Record<string, unknown>));
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

// Past an account's ceiling of failed sign-ins the password typed again for a sensitive screen
// needs a puzzle of the raised level too (server/passwords/ceiling.test.ts). The ceiling is real
// here: strangers fail to sign in to Olga's account a hundred times, two from each of fifty
// addresses (no address is held up, and none reaches its own robot check), which is the day's count
// for the top level. Olga, signed in before, then steps up to change her password: the real server
// refuses it for want of the puzzle, the form shows the widget at the level named, and its solution
// goes with her next try in the X-Captcha header.
test("past the account's ceiling of failed sign-ins, the password step-up asks for the puzzle at the level named, and the owner steps up", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const olga = user('ceiling');
  await signIn(page, olga.email);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Olga');

  const strangers = Array.from({ length: 50 }, (_, i) => `127.0.10.${i + 2}`);
  const answers: Array<Record<string, unknown>> = [];
  for (let batch = 0; batch < strangers.length; batch += 5) {
    await Promise.all(
      strangers.slice(batch, batch + 5).map(async (from) => {
        for (let i = 0; i < 2; i++) answers.push(await strangerSignIn(olga.email, from));
      }),
    );
  }
  expect(answers).toHaveLength(100);
  expect(answers.filter((answer) => answer.code !== 'invalid_credentials')).toEqual([]);
  expect(answers.some((answer) => answer.captcha_level === 2)).toBe(true);

  const headers: Array<string | undefined> = [];
  page.on('request', (request) => {
    if (request.url().endsWith('/api/mfa/sudo/password')) headers.push(request.headers()['x-captcha']);
  });
  await page.goto('/security');
  await page.getByRole('link', { name: 'Change your password' }).click();
  await expect(page).toHaveURL(/\/mfa\/methods\?single=true&redirect=%2Fsecurity%2Fedit-password$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText("Confirm it's you");
  await expect(page.getByTestId('captcha')).toHaveCount(0);
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByRole('alert')).toHaveText('Please confirm that you are not a robot.');
  await captchaReady(page);
  await expectNoAxeViolations(page);
  // The password stays typed: once the puzzle is solved, the person goes on.
  await expect(page.getByLabel('Password')).toHaveValue(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page).toHaveURL(/\/security\/edit-password$/);
  await expect(page.getByLabel('Current password')).toBeVisible();
  expect(headers).toHaveLength(2);
  expect(headers[0]).toBeUndefined();
  expect(levelOf(headers[1]!)).toBe(2);
});
