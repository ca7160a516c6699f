// The first visit of a public screen: the page arrives with the screen drawn, in the visitor's
// language, and with what the app needs to take it over, so it paints before any script runs and
// asks nothing before it can be used.
import { expect, test, type Page } from '@playwright/test';
import { holdRequests, signIn, user, toDashboard } from './support.ts';

/** Holds back the built script named `chunk` (the entry `index`, or the app's `start`) until the
 * returned function is called. */
const holdScript = (page: Page, chunk: 'index' | 'start') =>
  holdRequests(page, new RegExp(`/assets/${chunk}-[\\w-]+\\.js$`));

test('the sign-in paints before any script, what is typed meanwhile carries over, and no request waits before it', async ({
  page,
}) => {
  const asked: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/api/')) asked.push(new URL(request.url()).pathname);
  });
  // The entry script is held back until the person has typed.
  const release = await holdScript(page, 'index');
  await page.goto('/login/email', { waitUntil: 'commit' });

  await expect(page.getByRole('heading', { level: 1, name: 'Sign in to your Tessera account' })).toBeVisible();
  await expect(page).toHaveTitle('Sign in to your Tessera account · Tessera');
  await page.getByLabel('Email address').fill('first.visit@example.be');
  await page.getByLabel('Password', { exact: true }).focus();
  await page.keyboard.type('not-yet');

  release();
  // The app's own screen: it has taken over once the drawn marker is gone.
  await expect(page.locator('[data-prerendered]')).toHaveCount(0);
  await expect(page.getByLabel('Email address')).toHaveValue('first.visit@example.be');
  await expect(page.getByLabel('Password', { exact: true })).toHaveValue('not-yet');
  await expect(page.getByLabel('Password', { exact: true })).toBeFocused();
  // Nothing is asked of the server but, once the app is there, the challenge the address field's
  // passkey suggestions answer (which nothing waits for).
  const besidesSuggestions = () => asked.filter((path) => path !== '/api/passkey/options');
  expect(besidesSuggestions()).toEqual([]);

  // And it works as the app: a wrong password is refused by the server.
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('alert')).toContainText('Invalid username/password.');
  expect(besidesSuggestions()).toEqual(['/api/token']);
});

test("the app's modules are asked for only once the drawn sign-in is painted", async ({ page }) => {
  await page.goto('/login/email');
  await expect(page.locator('[data-prerendered]')).toHaveCount(0);
  const { painted, modules } = await page.evaluate(() => ({
    painted: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
    modules: performance
      .getEntriesByType('resource')
      .filter((entry) => /\/assets\/(start|shell)-[\w-]+\.js$/.test(entry.name))
      .map((entry) => entry.startTime),
  }));
  expect(painted).not.toBeNull();
  expect(modules).toHaveLength(2);
  for (const asked of modules) expect(asked).toBeGreaterThanOrEqual(painted!);
});

test('a sign-in sent before the app is there is made once it is; without scripts, it is sent back to the page', async ({
  page,
  browser,
  baseURL,
}) => {
  // The app's modules held back, the entry not: the entry holds the submission for the app.
  const release = await holdScript(page, 'start');
  await page.goto('/login/email', { waitUntil: 'commit' });
  await page.getByLabel('Email address').fill('early.submit@example.be');
  await page.getByLabel('Password', { exact: true }).fill('not-my-password-1');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page).toHaveURL(/\/login\/email$/);
  release();
  await expect(page.getByRole('alert')).toContainText('Invalid username/password.');

  // The entry itself held back: the page's starter holds the submission until the entry is there.
  const early = await page.context().newPage();
  const releaseEntry = await holdScript(early, 'index');
  await early.goto('/login/email', { waitUntil: 'commit' });
  await early.getByLabel('Email address').fill('early.submit@example.be');
  await early.getByLabel('Password', { exact: true }).fill('not-my-password-1');
  await early.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(early).toHaveURL(/\/login\/email$/);
  releaseEntry();
  await expect(early.getByRole('alert')).toContainText('Invalid username/password.');

  // No script runs at all: the browser posts the form, and is sent back to the sign-in.
  const scriptless = await browser.newContext({ javaScriptEnabled: false, baseURL });
  const other = await scriptless.newPage();
  await other.goto('/login/email', { waitUntil: 'commit' });
  await other.getByLabel('Email address').fill('early.submit@example.be');
  await other.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(other.getByRole('heading', { level: 1, name: 'Sign in to your Tessera account' })).toBeVisible();
  await expect(other.locator('body')).not.toContainText('not_found');
  await scriptless.close();
});

test('a link followed before the app is there is followed once it is, with what was typed; a click that asks for a new tab is left to the browser', async ({
  page,
}) => {
  const release = await holdScript(page, 'start');
  await page.goto('/login/email', { waitUntil: 'commit' });
  await page.getByLabel('Email address').fill('early.link@example.be');
  // Ctrl+click opens the screen in a tab of its own, as on any link.
  const [opened] = await Promise.all([
    page.context().waitForEvent('page'),
    page.getByRole('link', { name: 'Forgot your password?' }).click({ modifiers: ['ControlOrMeta'] }),
  ]);
  await expect(opened).toHaveURL(/\/forgot-password\/email$/);
  await opened.close();
  await page.getByRole('link', { name: 'Forgot your password?' }).click();
  await expect(page).toHaveURL(/\/login\/email$/);
  release();
  await expect(page).toHaveURL(/\/forgot-password\/email$/);
  await expect(page.getByLabel('Email address')).toHaveValue('early.link@example.be');
  // One history entry for the sign-in, as when the app follows the link.
  await page.goBack();
  await expect(page).toHaveURL(/\/login\/email$/);
  await expect(page.getByLabel('Email address')).toHaveValue('early.link@example.be');

  // The entry itself held back: the page's starter holds the link until the entry is there.
  const early = await page.context().newPage();
  const releaseEntry = await holdScript(early, 'index');
  await early.goto('/login/email', { waitUntil: 'commit' });
  await early.getByLabel('Email address').fill('earlier.link@example.be');
  await early.getByRole('link', { name: 'Forgot your password?' }).click();
  await expect(early).toHaveURL(/\/login\/email$/);
  releaseEntry();
  await expect(early).toHaveURL(/\/forgot-password\/email$/);
  await expect(early.getByLabel('Email address')).toHaveValue('earlier.link@example.be');
});

test('a press on a drawn link that the app takes over mid-press is still a click on that link', async ({ page }) => {
  const release = await holdScript(page, 'start');
  await page.goto('/login/email', { waitUntil: 'commit' });
  const link = (await page.getByRole('link', { name: 'Forgot your password?' }).boundingBox())!;
  await page.mouse.move(link.x + link.width / 2, link.y + link.height / 2);
  await page.mouse.down();
  // The app arrives while the button is down: swapping the screen now would split the press
  // between two elements, and the browser would click neither.
  release();
  await page.waitForTimeout(1000);
  await page.mouse.up();
  await expect(page).toHaveURL(/\/forgot-password\/email$/);
  await expect(page.locator('[data-prerendered]')).toHaveCount(0);
});

test('a language chosen in the drawn switch before the script arrives is the one the app shows', async ({ page }) => {
  const release = await holdScript(page, 'index');
  await page.goto('/login/email', { waitUntil: 'commit' });
  await expect(page.getByRole('heading', { level: 1, name: 'Sign in to your Tessera account' })).toBeVisible();
  await page.getByLabel('Language').selectOption('fr');
  release();
  await expect(page.locator('[data-prerendered]')).toHaveCount(0);
  await expect(page.getByRole('heading', { level: 1 })).not.toHaveText('Sign in to your Tessera account');
  await expect(page.getByLabel('Langue')).toHaveValue('fr');
});

test('each variant and language is drawn in its own words and colours', async ({ browser }) => {
  const context = await browser.newContext({
    locale: 'fr-LU',
    baseURL: `http://account.lu.localhost:${new URL(test.info().project.use.baseURL!).port}`,
  });
  const page = await context.newPage();
  await page.route(/\/assets\/index-[\w-]+\.js$/, (route) => route.abort());
  await page.goto('/login/email');
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr-LU');
  await expect(page.locator('html')).toHaveAttribute('data-variant', 'lu');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Connectez-vous à votre compte Tessera Luxembourg');
  await context.close();
});

test('a person who is signed in is sent the page without the sign-in drawn, and on to their screen', async ({
  page,
}) => {
  await signIn(page, user('cardholder').email);
  await toDashboard(page);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Emma');
  const sent = await page.evaluate(async () => (await fetch('/login/email')).text());
  expect(sent).toContain('<div id="root"></div>');
  expect(sent).toContain('"sessionCookie":true');
  await page.goto('/login/email');
  await expect(page).toHaveURL(/\/user\/dashboard$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Hello, Emma');
});
