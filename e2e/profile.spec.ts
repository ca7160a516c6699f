import { expect, test } from '@playwright/test';
import { DEMO_MFA_USERS } from '../server/seed/demo.ts';
import { codeSentTo, expectNoAxeViolations, mailsTo, sentCount, signInWithEmailCode } from './support.ts';

test.use({ locale: 'en-GB' });

// Paula is this walk's alone: no other walk reads or changes her profile.
const paula = DEMO_MFA_USERS.find((u) => u.key === 'profile')!;

test('the profile shows personal, contact and banking information; the personal information and the bank account change, and the account is told', async ({
  page,
}) => {
  // Six accessibility scans and two saves: more than the default on a busy machine.
  test.slow();
  await signInWithEmailCode(page, paula.email, 'Paula');
  await page.getByRole('navigation', { name: 'Your account' }).getByRole('link', { name: 'Profile' }).click();
  await expect(page).toHaveURL(/\/profile$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Profile');
  const personal = page.getByRole('region', { name: 'Personal information' });
  await expect(personal.getByText('Paula', { exact: true })).toBeVisible();
  const contacts = page.getByRole('region', { name: 'Contact information' });
  await expect(contacts.getByRole('listitem').filter({ hasText: paula.email })).toContainText('Primary');
  await expect(contacts.getByRole('listitem').filter({ hasText: paula.email })).toContainText('Verified');
  // A number reads as people write it.
  await expect(contacts.getByText('+32 470 17 17 17', { exact: true })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Bank account' })).toContainText('No bank account yet.');
  await expectNoAxeViolations(page);

  // edit-info opens from the overview; a deep link or a reload on it shows the overview instead.
  await page.goto('/profile/edit-info');
  await expect(page).toHaveURL(/\/profile$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Profile');
  await personal.getByRole('button', { name: 'Edit' }).click();
  await expect(page).toHaveURL(/\/profile\/edit-info$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Edit personal information');
  await expect(page.getByLabel('First name')).toBeFocused();
  await expectNoAxeViolations(page);

  // The form's own checks, before anything is sent.
  await page.getByLabel('First name').fill('R2-D2');
  await page.getByLabel('Date of birth').fill('2999-01-01');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Use only letters, spaces, apostrophes, hyphens and dots.')).toBeVisible();
  await expect(page.getByText('Your date of birth cannot be in the future.')).toBeVisible();
  await expect(page.getByLabel('First name')).toHaveAttribute('aria-invalid', 'true');
  await expectNoAxeViolations(page);

  // Back leaves the form for the overview, unchanged; Forward opens it again.
  await page.goBack();
  await expect(page).toHaveURL(/\/profile$/);
  await expect(personal.getByText('Paula', { exact: true })).toBeVisible();
  await page.goForward();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Edit personal information');

  await page.getByLabel('First name').fill('Paulä-Sophie');
  await page.getByLabel('Date of birth').fill('1988-07-14');
  await page.getByLabel('Gender').selectOption('female');
  await page.getByLabel('Preferred language').selectOption('fr');
  await page.getByRole('button', { name: 'Save' }).click();
  // Saved: the overview in the language chosen, saying so.
  await expect(page).toHaveURL(/\/profile$/);
  await expect(
    page.getByRole('status').or(page.getByText('Vos informations personnelles ont été enregistrées.')).first(),
  ).toBeVisible();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Profil');
  const personnel = page.getByRole('region', { name: 'Informations personnelles' });
  await expect(personnel.getByText('Paulä-Sophie', { exact: true })).toBeVisible();
  await expect(personnel).toContainText('14 juillet 1988');
  await expect(personnel).toContainText('Femme');
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  // The top bar greets the new name.
  await expect(page.getByText(/Paulä-Sophie/).first()).toBeVisible();
  await expectNoAxeViolations(page);

  // The bank account is sensitive: the sign-in's code is recent, so it opens at once.
  await page
    .getByRole('region', { name: 'Compte bancaire' })
    .getByRole('link', { name: 'Ajouter un compte bancaire' })
    .click();
  await expect(page).toHaveURL(/\/profile\/edit-bank$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Compte bancaire');
  await expectNoAxeViolations(page);
  await page.getByLabel('Pays du compte').selectOption('BE');
  await page.getByLabel('IBAN').fill('BE68 5390 0754 7035');
  await page.getByRole('button', { name: 'Enregistrer le compte bancaire' }).click();
  await expect(page.getByText("L'IBAN fourni n'est pas valide.")).toBeVisible();
  const mailsBefore = await sentCount(paula.email);
  await page.getByLabel('IBAN').fill('be68 5390 0754 7034');
  await page.getByRole('button', { name: 'Enregistrer le compte bancaire' }).click();
  await expect(page).toHaveURL(/\/profile$/);
  await expect(page.getByText('IBAN mis à jour.')).toBeVisible();
  await expect(page.getByTestId('iban-masked')).toHaveText('BE68 •••• •••• 7034');
  await expect(page.getByRole('region', { name: 'Compte bancaire' })).toContainText('Belgique');

  // The primary email is told, in the account's new language, without the whole number.
  await expect.poll(() => sentCount(paula.email)).toBeGreaterThan(mailsBefore);
  const notice = (await mailsTo(paula.email)).at(-1)!;
  expect(notice).toContain('7034');
  expect(notice).not.toContain('539007547034');

  // A reload keeps all of it; on a phone the overview fits the width.
  await page.reload();
  await expect(page.getByTestId('iban-masked')).toHaveText('BE68 •••• •••• 7034');
  await page.setViewportSize({ width: 375, height: 740 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await expectNoAxeViolations(page);

  // Put her back as she was, for the next run on the same server.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page
    .getByRole('region', { name: 'Informations personnelles' })
    .getByRole('button', { name: 'Modifier' })
    .click();
  await page.getByLabel('Prénom').fill('Paula');
  await page.getByLabel('Langue préférée').selectOption('en');
  await page.getByRole('button', { name: 'Enregistrer' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Profile');
});

test('the emails and phone numbers and the bank account each open from their own card, on a phone and a desktop', async ({
  page,
}) => {
  await signInWithEmailCode(page, paula.email, 'Paula');
  for (const width of [375, 1280]) {
    await page.setViewportSize({ width, height: width === 375 ? 740 : 900 });
    await page.goto('/profile');
    await page
      .getByRole('region', { name: 'Contact information' })
      .getByRole('link', { name: 'Manage emails and phone numbers' })
      .click();
    await expect(page).toHaveURL(/\/profile\/edit-credentials$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Emails and phone numbers');
    await expect(page.getByRole('region', { name: 'Email addresses' })).toBeVisible();
    await expect(page.getByRole('region', { name: 'Phone numbers' })).toBeVisible();
    // The bank account is not hidden below the contacts: it has a screen of its own.
    await expect(page.getByLabel('IBAN')).toHaveCount(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    await expectNoAxeViolations(page);

    await page.getByRole('link', { name: 'Profile', exact: true }).first().click();
    await expect(page).toHaveURL(/\/profile$/);
    await page
      .getByRole('region', { name: 'Bank account' })
      .getByRole('link', { name: /bank account/ })
      .click();
    await expect(page).toHaveURL(/\/profile\/edit-bank$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Bank account');
    await expect(page.getByLabel('IBAN')).toBeVisible();
    await expect(page.getByRole('region', { name: 'Email addresses' })).toHaveCount(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    await expectNoAxeViolations(page);
  }
});

test("an IBAN's country is filled from it and stays editable; left unset it is the IBAN's own, and another one picked is named", async ({
  page,
}) => {
  await signInWithEmailCode(page, paula.email, 'Paula');
  await page.setViewportSize({ width: 375, height: 740 });
  await page.goto('/profile');
  await page
    .getByRole('region', { name: 'Bank account' })
    .getByRole('link', { name: /bank account/ })
    .click();
  await expect(page.getByLabel('IBAN')).toBeVisible();
  const country = page.getByLabel('Country of the account');

  // Typed, the IBAN names its country, which shows and can still be changed.
  await page.getByLabel('IBAN').fill('NL91 ABNA 0417 1643 00');
  await expect(country).toHaveValue('NL');
  await expect(country).toBeEnabled();
  // Picked otherwise, the country is said, not the IBAN called invalid.
  await country.selectOption('BE');
  await page.getByRole('button', { name: 'Save the bank account' }).click();
  await expect(page.getByText('This IBAN is from another country: Netherlands, not Belgium.')).toBeVisible();
  await expect(page.getByText('The provided IBAN is invalid.')).toHaveCount(0);
  await expect(page.getByLabel('IBAN')).toHaveAttribute('aria-invalid', 'true');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await expectNoAxeViolations(page);

  // A valid Belgian IBAN with the country left unset is saved, in Belgium.
  await page.getByLabel('IBAN').fill('BE68 5390 0754 7034');
  await country.selectOption('');
  await page.getByRole('button', { name: 'Save the bank account' }).click();
  await expect(page).toHaveURL(/\/profile$/);
  await expect(page.getByText('IBAN updated.')).toBeVisible();
  await expect(page.getByTestId('iban-masked')).toHaveText('BE68 •••• •••• 7034');
  await expect(page.getByRole('region', { name: 'Bank account' })).toContainText('Belgium');
});

test('an email is added with the code it receives, cannot be made primary without a second factor on it, and is deleted after a yes', async ({
  page,
}) => {
  await signInWithEmailCode(page, paula.email, 'Paula');
  await page.goto('/profile/edit-credentials');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Emails and phone numbers');
  const emails = page.getByRole('region', { name: 'Email addresses' });
  await emails.getByRole('button', { name: 'Add an email address' }).click();
  await expect(page.getByLabel('New email address')).toBeFocused();
  // Another account's address is sent its code like any other: nothing tells, before the code, that
  // it belongs to an account (the merge's offer comes only with the code's answer: e2e/fuzzion.spec.ts).
  await page.getByLabel('New email address').fill('emma.peeters@example.be');
  await page.getByRole('button', { name: 'Send a code' }).click();
  await expect(emails.getByText('We sent a code to emma.peeters@example.be.', { exact: false })).toBeVisible();
  await expect(page.getByText('already in use', { exact: false })).toHaveCount(0);
  await emails.getByRole('button', { name: 'Cancel' }).click();
  await emails.getByRole('button', { name: 'Add an email address' }).click();

  const added = `paula.${Date.now()}@example.be`;
  await page.getByLabel('New email address').fill(added);
  await page.getByRole('button', { name: 'Send a code' }).click();
  await expect(emails.getByText(`We sent a code to ${added}.`, { exact: false })).toBeVisible();
  await expectNoAxeViolations(page);
  await page.getByLabel('Security code').fill(await codeSentTo(added));
  await expect(page.getByText('Email or phone updated: the new one is on your account.')).toBeVisible();
  const entry = emails.getByRole('listitem').filter({ hasText: added });
  await expect(entry).toContainText('Verified');
  // The primary address is told.
  await expect
    .poll(async () => (await mailsTo(paula.email)).at(-1) ?? '')
    .toContain(`${added} was added to your Tessera account`);

  // No second factor sends to it: it cannot become the primary one. The button waits, busy, for the answer.
  let answer = () => {};
  const answered = new Promise<void>((resolve) => (answer = resolve));
  await page.route('**/api/user/login/primary', async (route) => {
    await answered;
    return route.fallback();
  });
  const makePrimary = entry.getByRole('button', { name: `Make primary: ${added}` });
  await makePrimary.click();
  await expect(makePrimary).toHaveAttribute('aria-busy', 'true');
  await expect(makePrimary.getByTestId('button-spinner')).toBeVisible();
  await expect(entry.getByRole('button', { name: `Delete ${added}` })).toBeDisabled();
  answer();
  await expect(page.getByText('An error occurred during the switch.')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Go to Security' })).toHaveAttribute('href', '/security/mfa-edit');

  // Deleting asks first; No keeps it and focus goes back to its button.
  await entry.getByRole('button', { name: `Delete ${added}` }).click();
  const question = page.getByRole('alertdialog');
  await expect(question.getByRole('heading')).toBeFocused();
  await expectNoAxeViolations(page);
  await question.getByRole('button', { name: 'No, keep it' }).click();
  await expect(entry.getByRole('button', { name: `Delete ${added}` })).toBeFocused();
  await entry.getByRole('button', { name: `Delete ${added}` }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Yes, delete' }).click();
  await expect(page.getByText('Email or phone deleted.')).toBeVisible();
  await expect(emails.getByRole('listitem').filter({ hasText: added })).toHaveCount(0);
  await expect
    .poll(async () => (await mailsTo(added)).at(-1) ?? '')
    .toContain(`${added} was removed from your Tessera account`);

  // The primary address has no Delete: it is the one the account keeps.
  await expect(emails.getByRole('listitem').filter({ hasText: paula.email }).getByRole('button')).toHaveCount(0);
  await page.setViewportSize({ width: 375, height: 740 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  await expectNoAxeViolations(page);
});

test("the account's data downloads as one JSON file from the profile", async ({ page }) => {
  await signInWithEmailCode(page, paula.email, 'Paula');
  await page.goto('/profile');
  await page.getByRole('region', { name: 'Your data' }).getByRole('link', { name: 'Download my data' }).click();
  await expect(page).toHaveURL(/\/profile\/download$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Your data');
  await expectNoAxeViolations(page);
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download my data (JSON)' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^tessera-account-\d{4}-\d{2}-\d{2}\.json$/);
  const text = await (
    await download.createReadStream()
  )
    .toArray()
    .then((chunks) => Buffer.concat(chunks).toString('utf8'));
  const data = JSON.parse(text);
  expect(data.emails.map((e: { value: string }) => e.value)).toContain(paula.email);
  expect(data.history.length).toBeGreaterThan(0);
  expect(text).not.toContain('$argon2');
  await expect(page.getByText('Your data has been downloaded.')).toBeVisible();
  await page.getByRole('button', { name: 'Back to the profile' }).click();
  await expect(page).toHaveURL(/\/profile$/);
});

/** An 8×8 PNG whose text chunk says where it was taken. */
const PICTURE = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEXRFWHRMb2NhdGlvbgBCcnVzc2Vsc8y58hUAAAB5SURBVHicBcExAQAgCEXBH8LZ2RCEYGYmBCGcTUKIN5PIOyGhhQ4y5ChRoSu22It92MZ2drKLfYUJW9jBDHMsscKuCBGLOIQRTiRRxBUlalGHMsqppIq64om3eIdnPOclr3hXtOhFH9pop5Mu+ooRs5jDGONMMsXcD5sIXcHrriv9AAAAAElFTkSuQmCC',
  'base64',
);

test('a profile picture is chosen, shrunk and sent without what it says of where it was taken, then removed', async ({
  page,
}) => {
  await signInWithEmailCode(page, paula.email, 'Paula');
  await page.goto('/profile');
  const card = page.getByRole('region', { name: 'Profile picture' });
  await expect(card.getByRole('group', { name: 'Add a picture' })).toBeVisible();
  await expect(card.getByRole('button', { name: 'Take a picture' })).toBeVisible();
  await card.getByTestId('file-browse').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: PICTURE });
  await expect(page.getByText('Your picture has been saved.')).toBeVisible();
  const picture = card.getByRole('img', { name: 'Your profile picture' });
  await expect(picture).toBeVisible();
  expect(await picture.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(8);
  // What the server keeps is the picture the browser drew again, as JPEG: nothing of the file's text.
  const stored = await page.evaluate(async () => {
    const answer = await fetch('/api/user/picture', { headers: { 'x-device-id': localStorage.getItem('device_id')! } });
    return {
      type: answer.headers.get('content-type'),
      text: new TextDecoder('latin1').decode(await answer.arrayBuffer()),
    };
  });
  expect(stored.type).toBe('image/jpeg');
  expect(stored.text).not.toContain('Brussels');
  await expectNoAxeViolations(page);
  let answer = () => {};
  const answered = new Promise<void>((resolve) => (answer = resolve));
  await page.route('**/api/user/picture', async (route) => {
    if (route.request().method() === 'DELETE') await answered;
    return route.fallback();
  });
  const remove = card.getByRole('button', { name: 'Remove the picture' });
  await remove.click();
  await expect(remove).toHaveAttribute('aria-busy', 'true');
  answer();
  await expect(page.getByText('Your picture has been removed.')).toBeVisible();
  await expect(card.getByRole('img')).toHaveCount(0);
});

// Last of the file: undoing locks Paula's password until a new one is chosen.
test('"this wasn\'t me": the link of an address added undoes it after a yes, and asks for a new password', async ({
  page,
  browser,
}) => {
  await signInWithEmailCode(page, paula.email, 'Paula');
  await page.goto('/profile/edit-credentials');
  const added = `intruder.${Date.now()}@example.be`;
  await page
    .getByRole('region', { name: 'Email addresses' })
    .getByRole('button', { name: 'Add an email address' })
    .click();
  await page.getByLabel('New email address').fill(added);
  await page.getByRole('button', { name: 'Send a code' }).click();
  await page.getByLabel('Security code').fill(await codeSentTo(added));
  await expect(page.getByText('Email or phone updated: the new one is on your account.')).toBeVisible();

  // The owner reads the notice in another browser and follows its link.
  await expect.poll(async () => (await mailsTo(paula.email)).at(-1) ?? '').toContain(`${added} was added`);
  const mail = (await mailsTo(paula.email)).at(-1)!;
  const link = /https?:\/\/[^\s"]+\/undo-change#[\w-]+/.exec(mail)![0];
  const owner = await (await browser.newContext({ locale: 'en-GB' })).newPage();
  await owner.goto(link);
  await expect(owner.getByRole('heading', { level: 1 })).toHaveText("This wasn't you?");
  // The token leaves the address bar at once.
  await expect(owner).toHaveURL(/\/undo-change$/);
  await expectNoAxeViolations(owner);
  await owner.getByRole('button', { name: 'Undo the change and secure my account' }).click();
  await expect(owner.getByRole('heading', { level: 1 })).toHaveText('Your account is safe again');
  await expect(owner.getByRole('link', { name: 'Choose a new password' })).toHaveAttribute(
    'href',
    '/forgot-password/email',
  );

  // The intruder's session is over; the address is gone; the old password no longer signs in.
  await page.reload();
  await expect(page).toHaveURL(/\/login\/email/);
  await page.getByLabel('Email address').fill(paula.email);
  await page.getByLabel('Password', { exact: true }).fill('Tessera-demo-2026!');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByText('Invalid username/password.')).toBeVisible();
});
