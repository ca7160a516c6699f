// A call whose answer was lost on its way (the instance that did the work was lost before its
// answer left, and the balancer answered 502): the screen says something went wrong, the person
// presses the same button once more, and the journey goes on as if the first answer had come. The
// repeat carries the first call's Idempotency-Key, the server answers it with the answer it kept, and
// nothing is done twice: one session, one code mailed. A portal of its own, at 375 px.
import { expect, test, type Page, type Route } from '@playwright/test';
import { IDEMPOTENCY_HEADER } from '../contract/constants.ts';
import { DEMO_MFA_USERS, DEMO_PASSWORD } from '../server/seed/demo.ts';
import { codeIn, startSmtp } from '../server/testing/peers.ts';
import { ownPortal, type OwnPortal } from './ownPortal.ts';
import { expectNoAxeViolations } from './support.ts';

test.use({ locale: 'en-GB', viewport: { width: 375, height: 812 } });

const mila = DEMO_MFA_USERS.find((u) => u.key === 'mfa')!;
let portal: OwnPortal;
let smtp: Awaited<ReturnType<typeof startSmtp>>;

test.beforeAll(async () => {
  smtp = await startSmtp();
  portal = await ownPortal('lost-answer', { SMTP_URL: smtp.url });
});
test.afterAll(async () => {
  await portal?.stop();
  await smtp?.stop();
});

/** The first call to `path` reaches the server, which does its work; its answer is then lost (the
 * balancer's 502). Every call's key and whether its answer was a kept one are recorded. */
async function loseFirstAnswer(page: Page, path: RegExp) {
  const calls: Array<{ key: string; replayed: boolean }> = [];
  await page.route(
    (url) => path.test(url.pathname),
    async (route: Route) => {
      // Node cannot resolve *.localhost as the browser does: the same call, to loopback, same Host.
      const url = new URL(route.request().url());
      const answer = await route.fetch({
        url: `http://127.0.0.1:${url.port}${url.pathname}${url.search}`,
        headers: { ...route.request().headers(), host: url.host },
      });
      calls.push({
        key: route.request().headers()[IDEMPOTENCY_HEADER] ?? '',
        replayed: answer.headers()['idempotent-replayed'] === 'true',
      });
      if (calls.length === 1) {
        await route.fulfill({
          status: 502,
          contentType: 'text/html',
          body: '<html><body>502 Bad Gateway</body></html>',
        });
      } else {
        await route.fulfill({ response: answer });
      }
    },
  );
  return calls;
}

test('a sign-in and a code ask whose answers were lost go on when the person presses again, with one session and one code', async ({
  page,
}) => {
  const signIns = await loseFirstAnswer(page, /^\/api\/token$/);
  await page.goto(`${portal.base}/login/email`);
  await page.getByLabel('Email address').fill(mila.email);
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  // The screen says the sign-in did not go through; the password is typed again, as after any failure.
  await expect(page.getByRole('alert').last()).toBeVisible();
  await page.screenshot({ path: 'test-results/lost-answer-sign-in.png' });
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText("Verify it's you");
  expect(signIns).toHaveLength(2);
  expect(signIns[1]!.key).toBe(signIns[0]!.key);
  // Its first answer asked for the second factor (a 401, which is not kept): the repeat asked again.
  expect(signIns[1]!.replayed).toBe(false);

  const asks = await loseFirstAnswer(page, /^\/api\/mfa\/sudo$/);
  await page.getByRole('button', { name: /Email a code/ }).click();
  await expect(page.getByRole('alert').last()).toBeVisible();
  await page.screenshot({ path: 'test-results/lost-answer-code.png' });
  await page.getByRole('button', { name: /Email a code/ }).click();
  await expect(page.getByLabel('Security code')).toBeVisible();
  await expectNoAxeViolations(page);
  expect(asks.filter((call) => call.key)).toHaveLength(2);
  expect(asks[1]!.key).toBe(asks[0]!.key);
  expect(asks[1]!.replayed).toBe(true);
  // One code was mailed, and it is the one the screen takes.
  await expect.poll(() => smtp.mails.filter((m) => m.to === mila.email).length).toBe(1);
  await page.getByLabel('Security code').fill(codeIn(smtp.mails.at(-1)!.raw));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Hello, ${mila.firstname}`);
  // Still one, the whole journey long.
  expect(smtp.mails.filter((m) => m.to === mila.email)).toHaveLength(1);
});
