// Microsoft sign-in against the peers' stand-in for Entra ID (e2e/microsoftPeer.ts): the beta
// notice, linking a work account to an existing account, signing in with it (its second factor
// included), unlinking it from Security, and a company the portal does not allow.
import { expect, test, type Page } from '@playwright/test';
import { E2E_PEERS_PORT } from '../playwright.config.ts';
import { ACME_NAME, OTHER_TENANT, nextMicrosoftUser } from './microsoftPeer.ts';
import { DEMO_MFA_USERS } from '../server/seed/demo.ts';
import { codeSentTo, expectNoAxeViolations, sentCount, signIn } from './support.ts';

const max = DEMO_MFA_USERS.find((u) => u.key === 'microsoft')!;
const heading = (page: Page) => page.getByRole('heading', { level: 1 });

/** Opens the beta notice from the sign-in screen and goes on to Microsoft, which signs `who` in. */
async function signInWithMicrosoft(page: Page, who: Parameters<typeof nextMicrosoftUser>[1]) {
  await nextMicrosoftUser(E2E_PEERS_PORT, who);
  await page.getByRole('button', { name: 'Sign in with Microsoft' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Continue with Microsoft' }).click();
}

async function emailCode(page: Page, email: string, before: number) {
  await page.getByRole('button', { name: /Email a code/ }).click();
  await page.getByLabel('Security code').fill(await codeSentTo(email, before));
}

test('a Microsoft work account is linked after the password and its code, signs in with the second factor, and is unlinked from Security (375 px)', async ({
  page,
}) => {
  // Five accessibility scans and three trips to Microsoft: more than the default on a busy machine.
  test.slow();
  await page.setViewportSize({ width: 375, height: 800 });
  const work = {
    oid: '5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a',
    email: 'max.michiels@acme.example',
    name: 'Max Michiels',
  };

  // The beta notice names the company, closes with Escape, and gives the focus back.
  await page.goto('/login/email');
  const button = page.getByRole('button', { name: 'Sign in with Microsoft' });
  await button.click();
  const notice = page.getByRole('dialog', { name: 'Sign in with Microsoft (beta)' });
  await expect(notice).toContainText(`in beta for ${ACME_NAME}`);
  await expectNoAxeViolations(page);
  await page.keyboard.press('Escape');
  await expect(notice).toBeHidden();
  await expect(button).toBeFocused();

  // No account has this work account: it is offered a link, never matched by its email.
  await signInWithMicrosoft(page, work);
  await expect(page).toHaveURL(/\/partner\/link-existing\?ticket=/);
  await expect(heading(page)).toHaveText('Link your existing account');
  await expect(page.getByTestId('microsoft-identity')).toContainText(work.email);
  await expect(page.getByTestId('microsoft-identity')).toContainText(ACME_NAME);
  await expectNoAxeViolations(page);

  // The existing account proves itself: its password, then its second factor.
  await page.getByTestId('link-existing-account').click();
  await expect(page).toHaveURL(/\/login\/email$/);
  // The sign-in says what it is for, and does not offer Microsoft again; so does its phone tab.
  const linking = `Sign in to link your Microsoft work account at ${ACME_NAME}. It is linked to your account as soon as you are signed in.`;
  await expect(page.getByText(linking)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Sign in with Microsoft' })).toHaveCount(0);
  await expectNoAxeViolations(page);
  await page.getByRole('link', { name: 'Phone', exact: true }).click();
  await expect(page.getByText(linking)).toBeVisible();
  await page.getByRole('link', { name: 'Email', exact: true }).click();
  let before = await sentCount(max.email);
  await signIn(page, max.email);
  await emailCode(page, max.email, before);
  await expect(heading(page)).toHaveText('Your account is linked');
  await expectNoAxeViolations(page);
  await expect(heading(page)).toHaveText(`Hello, ${max.firstname}`);

  // Security lists it.
  await page.goto('/security');
  const linked = page.getByTestId('linked-accounts');
  await expect(linked).toContainText(`Microsoft account — ${ACME_NAME}`);
  await expect(linked).toContainText(work.email);
  // The sign-in with Microsoft that linked it was its first use.
  await expect(linked).toContainText('Last used');
  await expect(linked).not.toContainText('Not yet');

  // Signed out, the work account signs in to the same account, through its second factor.
  await page.goto('/logout');
  await expect(page).toHaveURL(/\/login\/email$/);
  before = await sentCount(max.email);
  await signInWithMicrosoft(page, work);
  await expect(page).toHaveURL(/\/mfa\/methods$/);
  await expect(heading(page)).toHaveText("Verify it's you");
  await emailCode(page, max.email, before);
  await expect(heading(page)).toHaveText(`Hello, ${max.firstname}`);

  // Unlinked after a yes; the next Microsoft sign-in is offered a link again.
  await page.goto('/security');
  await linked.getByRole('button', { name: `Unlink the Microsoft account of ${ACME_NAME}` }).click();
  const confirm = page.getByRole('alertdialog', { name: `Unlink the Microsoft account of ${ACME_NAME}?` });
  await expectNoAxeViolations(page);
  await confirm.getByRole('button', { name: 'Unlink' }).click();
  await expect(linked).toContainText('The Microsoft account is unlinked.');
  await expect(linked).toContainText('No Microsoft account is linked.');
  await page.goto('/logout');
  await signInWithMicrosoft(page, work);
  await expect(page).toHaveURL(/\/partner\/link-existing\?ticket=/);
});

test('a work account of a company the portal does not allow is refused on the sign-in screen, at 1280 px', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/login/email');
  await signInWithMicrosoft(page, {
    oid: '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b',
    email: 'someone@other.example',
    tid: OTHER_TENANT,
  });
  await expect(page).toHaveURL(/\/login\/email\?sso_error=sso_tenant_not_allowed$/);
  await expect(page.getByRole('alert')).toHaveText(
    'Your organisation cannot sign in with Microsoft here. Please sign in with your email and password.',
  );
  await expectNoAxeViolations(page);
  // The password sign-in is there to go on with.
  await expect(page.getByLabel('Email address')).toBeEditable();
});

test("the second factor's hand-over without its payload, or with a spent one, says so and leads to sign-in", async ({
  page,
}) => {
  await page.goto('/login/microsoft#mfa=spent-or-made-up');
  await expect(page.getByRole('alert')).toHaveText(
    'This Microsoft sign-in has expired or was already used. Please sign in with Microsoft again.',
  );
  // The payload leaves the address at once: Back or a reload cannot send it again.
  await expect(page).toHaveURL(/\/login\/microsoft$/);
  await page.reload();
  await expect(page.getByRole('alert')).toHaveText('The sign-in with Microsoft did not succeed. Please try again.');
  await expectNoAxeViolations(page);
  await page.getByRole('link', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/login\/email$/);
});
