// Demo data, seeded on an empty database by `npm start` (and used by the tests).
import { readFileSync } from 'node:fs';
import type { AppContext } from '../context.ts';
import { nowIso } from '../db/index.ts';
import {
  addVerifiedContact,
  createUser as createAccountUser,
  hasAnyAccount,
  type NewUser,
  type PlatformIdColumn,
} from '../identity/accounts.ts';
import { waitingCardRow, type WaitingCard } from '../cards/import.ts';
import { addMethod } from '../identity/second-factors.ts';
import { activationCodeHash } from '../methods/activation-code.ts';
import { storeRecoveryKeys } from '../methods/recovery-key.ts';
import { encryptSecret } from '../config/secrets.ts';
import { newId } from '../sessions/tokens.ts';
import { registerClient, type ClientRegistration } from '../oidc/clients.ts';
import { checkLogo } from '../oidc/logos.ts';
import { MAX_INVITATION_DAYS, createInvitation } from '../invitations/create.ts';

export const DEMO_PASSWORD = 'Tessera-demo-2026!';

/** A demo account: the details of a new account (NewUser), with what the demo says of it. */
export type DemoUser = Pick<NewUser, 'firstname' | 'lastname' | 'language' | 'email' | 'phone' | PlatformIdColumn> & {
  key: string;
  description: string;
  password_status: 0 | 1 | 2;
  /** A second factor is mandatory: the user is sent to enrol before anything else. */
  mfa_forced?: boolean;
  /** A company customer offered a second factor, who may skip it. */
  mfa_customer?: boolean;
  national_register_number?: string;
  /** More verified email addresses, besides the primary one. */
  extraEmails?: string[];
};

export const DEMO_USERS: DemoUser[] = [
  {
    key: 'cardholder',
    description: 'Belgian card holder with all three platforms',
    firstname: 'Emma',
    lastname: 'Peeters',
    language: 'nl',
    email: 'emma.peeters@example.be',
    phone: '+32470123456',
    user_id: 'U-1001',
    customer_user_id: 'C-2001',
    fridom_user_id: 'F-3001',
    password_status: 0,
    national_register_number: '85073003328',
  },
  {
    key: 'luxembourg',
    description: 'Luxembourg user',
    firstname: 'Luc',
    lastname: 'Schmit',
    language: 'fr_LU',
    email: 'luc.schmit@example.lu',
    phone: '+352621123456',
    user_id: 'U-1002',
    customer_user_id: null,
    fridom_user_id: 'F-3002',
    password_status: 0,
  },
  {
    key: 'customer',
    description: 'Company customer (client area only)',
    firstname: 'Claire',
    lastname: 'Dubois',
    language: 'fr',
    email: 'claire.dubois@example.com',
    phone: '+32470987654',
    user_id: null,
    customer_user_id: 'C-2002',
    fridom_user_id: null,
    password_status: 0,
  },
  {
    key: 'weak',
    description: 'User whose password must be renewed',
    firstname: 'Wout',
    lastname: 'Janssens',
    language: 'nl',
    email: 'wout.weak@example.be',
    phone: '+32470555555',
    user_id: 'U-1003',
    customer_user_id: null,
    fridom_user_id: null,
    password_status: 1,
  },
  {
    key: 'reset',
    description: 'For trying the forgotten-password flow',
    firstname: 'Rita',
    lastname: 'Renard',
    language: 'en',
    email: 'rita.reset@example.be',
    phone: '+32470111111',
    user_id: 'U-1009',
    customer_user_id: null,
    fridom_user_id: null,
    password_status: 0,
  },
  {
    key: 'newcomer',
    description: 'No second factor yet, for turning it on from Security',
    firstname: 'Noah',
    lastname: 'Nijs',
    language: 'en',
    email: 'noah.nijs@example.be',
    phone: '+32470121212',
    user_id: 'U-1010',
    customer_user_id: null,
    fridom_user_id: null,
    password_status: 0,
  },
  {
    key: 'devices',
    description: 'For trying the new-device mail: sign in from a second browser',
    firstname: 'Dina',
    lastname: 'Dewit',
    language: 'en',
    email: 'dina.devices@example.be',
    phone: '+32470191919',
    user_id: 'U-1012',
    customer_user_id: null,
    fridom_user_id: null,
    password_status: 0,
  },
  {
    key: 'ceiling',
    description:
      "No second factor; for trying the puzzle the password typed again asks past the account's ceiling of failed sign-ins",
    firstname: 'Olga',
    lastname: 'Olsen',
    language: 'en',
    email: 'olga.ceiling@example.be',
    phone: '+32470272727',
    user_id: 'U-1017',
    customer_user_id: null,
    fridom_user_id: null,
    password_status: 0,
  },
  {
    key: 'duplicate',
    description: "Mia's older account, for trying the merge: add this email to Mia's account (mia.merge@example.be)",
    firstname: 'Mia',
    lastname: 'Mertens',
    language: 'en',
    email: 'mia.mertens@example.com',
    phone: '+32470212121',
    user_id: null,
    customer_user_id: 'C-2005',
    fridom_user_id: null,
    password_status: 0,
  },
  {
    key: 'duplicateCode',
    description: "Another older account of Mia's, for trying the merge proven by a code sent to its address",
    firstname: 'Mia',
    lastname: 'Mertens',
    language: 'en',
    email: 'mia.old@example.net',
    phone: '+32470232323',
    user_id: null,
    customer_user_id: null,
    fridom_user_id: 'F-3005',
    password_status: 0,
  },
  {
    key: 'duplicateSpare',
    description:
      'An account with a second email (mia.work@example.org), for trying to decline the merge: the address leaves it',
    firstname: 'Mia',
    lastname: 'Mertens',
    language: 'en',
    email: 'mia.third@example.be',
    phone: '+32470242424',
    extraEmails: ['mia.work@example.org'],
    user_id: null,
    customer_user_id: null,
    fridom_user_id: null,
    password_status: 0,
  },
];

/** Demo accounts with a second factor. Tom's authenticator uses this published demo secret. */
export const DEMO_TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
/** Tom's recovery keys, published for trying the recovery screen (each works once). */
export const DEMO_RECOVERY_KEYS = [
  'DEMXK-AAAA2',
  'DEMXK-BBBB3',
  'DEMXK-CCCC4',
  'DEMXK-DDDD5',
  'DEMXK-EEEE6',
  'DEMXK-FFFF7',
  'DEMXK-GGGG8',
  'DEMXK-HHHH9',
  'DEMXK-JJJJ2',
  'DEMXK-KKKK3',
];
/** Demo benefit cards (16 digits starting with 5065), with their holders. Emma's card also has its
 * letter's activation code: activating it again leads to the "already activated" screen. */
export const DEMO_CARDS = [
  { number: '5065000000000001', holder: 'card', activationCode: null },
  { number: '5065000000000002', holder: 'cardholder', activationCode: '200202' },
  { number: '5065000000000003', holder: 'sessions', activationCode: null },
];

/** Cards waiting for their holder (onboarding), with what the employer told us of them. */
export type DemoOnboardingCard = WaitingCard & { status?: 'blocked' };
export const DEMO_ONBOARDING_CARDS: DemoOnboardingCard[] = [
  {
    number: '5065000000001001',
    activationCode: '100101',
    firstname: 'Nora',
    lastname: 'Nys',
    email: 'nora.nys@example.be',
    phone: '+32470101001',
    language: 'nl',
    company: 'Brasserie De Smet',
    beneficiaryId: 'U-2001',
  },
  {
    number: '5065000000001002',
    activationCode: '100202',
    firstname: 'Bart',
    lastname: 'Bosmans',
    email: 'bart.bosmans@example.be',
    phone: '+32470101002',
    language: 'nl',
    company: 'Brasserie De Smet',
    beneficiaryId: 'U-2002',
  },
  {
    number: '5065000000001003',
    activationCode: '100303',
    firstname: 'Julie',
    lastname: 'Lambert',
    email: 'julie.lambert@example.be',
    phone: '+32470101003',
    language: 'fr',
    company: 'Atelier Lambert',
    beneficiaryId: 'U-2003',
  },
  {
    number: '5065000000001004',
    activationCode: '100404',
    firstname: 'Sophie',
    lastname: 'Weber',
    email: 'sophie.weber@example.lu',
    phone: '+352621100404',
    language: 'fr_LU',
    company: 'Boulangerie Weber',
    beneficiaryId: 'U-2004',
  },
  {
    number: '5065000000001005',
    activationCode: '100505',
    firstname: null,
    lastname: null,
    email: null,
    phone: null,
    language: null,
    company: null,
    beneficiaryId: null,
  },
  {
    number: '5065000000001006',
    activationCode: '100606',
    firstname: 'Tim',
    lastname: 'Thys',
    email: 'tim.thys@example.be',
    phone: '+32470101006',
    language: 'en',
    company: 'Thys Logistics',
    beneficiaryId: 'U-2006',
  },
  {
    number: '5065000000001007',
    activationCode: '100707',
    firstname: 'Lea',
    lastname: 'Lost',
    email: 'lea.lost@example.be',
    phone: '+32470101007',
    language: 'en',
    company: 'Thys Logistics',
    beneficiaryId: 'U-2007',
    status: 'blocked',
  },
];

/** Invitations ("I received an email"), good for 90 days (the longest an invitation lives) from the seeding. */
export type DemoInvitation = {
  code: string;
  email: string;
  firstname: string | null;
  lastname: string | null;
  language: string | null;
  company: string | null;
  userId: string | null;
  customerUserId: string | null;
  mfaCustomer?: boolean;
  /** The account must have a second factor: it sets one up at its first sign-in. */
  mfaForced?: boolean;
};
export const DEMO_INVITATIONS: DemoInvitation[] = [
  {
    code: 'TESS-JOIN-0001',
    email: 'anna.aerts@example.be',
    firstname: 'Anna',
    lastname: 'Aerts',
    language: 'nl',
    company: 'Brasserie De Smet',
    userId: 'U-2101',
    customerUserId: null,
  },
  {
    code: 'TESS-JOIN-0002',
    email: 'hugo.hendrickx@example.be',
    firstname: 'Hugo',
    lastname: 'Hendrickx',
    language: 'en',
    company: 'Thys Logistics',
    userId: 'U-2102',
    customerUserId: null,
  },
  {
    code: 'TESS-JOIN-0003',
    email: 'chloe.client@example.com',
    firstname: 'Chloé',
    lastname: 'Collin',
    language: 'fr',
    company: 'Atelier Lambert',
    userId: null,
    customerUserId: 'C-2103',
    mfaCustomer: true,
  },
  {
    code: 'TESS-JOIN-0004',
    email: 'fenna.forced@example.be',
    firstname: 'Fenna',
    lastname: 'Foré',
    language: 'nl',
    company: 'Thys Logistics',
    userId: 'U-2104',
    customerUserId: null,
    mfaForced: true,
  },
];

export const DEMO_MFA_USERS: Array<DemoUser & { methods: Array<'email' | 'sms' | 'totp' | 'card'> }> = [
  {
    key: 'mfa',
    description: 'Second factor by email or phone (SMS, call, WhatsApp)',
    firstname: 'Mila',
    lastname: 'Maes',
    language: 'en',
    email: 'mila.mfa@example.be',
    phone: '+32470222222',
    user_id: 'U-1004',
    customer_user_id: null,
    fridom_user_id: null,
    password_status: 0,
    methods: ['email', 'sms'],
  },
  {
    key: 'totp',
    description: `Authenticator app (secret ${DEMO_TOTP_SECRET}) with email backup`,
    firstname: 'Tom',
    lastname: 'Thys',
    language: 'en',
    email: 'tom.totp@example.be',
    phone: '+32470333333',
    user_id: 'U-1005',
    customer_user_id: null,
    fridom_user_id: null,
    password_status: 0,
    methods: ['totp', 'email'],
  },
  {
    key: 'secure',
    description: 'Second factor by email or phone, for trying the security settings',
    firstname: 'Sara',
    lastname: 'Segers',
    language: 'en',
    email: 'sara.secure@example.be',
    phone: '+32470888888',
    user_id: 'U-1007',
    customer_user_id: null,
    fridom_user_id: null,
    password_status: 0,
    methods: ['email', 'sms'],
  },
  {
    key: 'passkey',
    description: 'Second factor by email and no passkey yet: add one from Security, then sign in with it',
    firstname: 'Pieter',
    lastname: 'Peeters',
    language: 'en',
    email: 'pieter.passkey@example.be',
    phone: '+32470282828',
    user_id: 'U-1018',
    customer_user_id: null,
    fridom_user_id: null,
    password_status: 0,
    methods: ['email'],
  },
  {
    key: 'password',
    description: 'Second factor by email, for trying the password change from Security',
    firstname: 'Pia',
    lastname: 'Pauwels',
    language: 'en',
    email: 'pia.password@example.be',
    phone: '+32470151515',
    user_id: 'U-1013',
    customer_user_id: null,
    fridom_user_id: null,
    password_status: 0,
    methods: ['email'],
  },
  {
    key: 'card',
    description: 'Second factor: the number of the card 5065 0000 0000 0001, or email',
    firstname: 'Kato',
    lastname: 'Claes',
    language: 'en',
    email: 'kato.card@example.be',
    phone: '+32470999999',
    user_id: 'U-1008',
    customer_user_id: null,
    fridom_user_id: null,
    password_status: 0,
    methods: ['card', 'email'],
  },
  {
    key: 'sessions',
    description: 'Second factor: the number of the card 5065 0000 0000 0003, or email; for trying devices and sessions',
    firstname: 'Sven',
    lastname: 'Smets',
    language: 'en',
    email: 'sven.sessions@example.be',
    phone: '+32470181818',
    user_id: 'U-1014',
    customer_user_id: null,
    fridom_user_id: null,
    password_status: 0,
    methods: ['card', 'email'],
  },
  {
    key: 'profile',
    description: 'Second factor by email or phone, for trying the profile (names, language, bank account)',
    firstname: 'Paula',
    lastname: 'Peeters',
    language: 'en',
    email: 'paula.profile@example.be',
    phone: '+32470171717',
    user_id: 'U-1011',
    customer_user_id: null,
    fridom_user_id: null,
    password_status: 0,
    methods: ['email', 'sms'],
  },
  {
    key: 'merge',
    description:
      'Second factor by email, for trying the merge: add mia.mertens@example.com (her older account) to her emails',
    firstname: 'Mia',
    lastname: 'Mertens',
    language: 'en',
    email: 'mia.merge@example.be',
    phone: '+32470202020',
    user_id: 'U-1015',
    customer_user_id: null,
    fridom_user_id: null,
    password_status: 0,
    methods: ['email'],
  },
  {
    key: 'duplicateSecured',
    description:
      "An older account of Mia's with a second factor by SMS, for trying a merge that asks it: add mia.secure@example.be to Mia's account",
    firstname: 'Mia',
    lastname: 'Mertens',
    language: 'en',
    email: 'mia.secure@example.be',
    phone: '+32470252525',
    user_id: null,
    customer_user_id: null,
    fridom_user_id: null,
    password_status: 0,
    methods: ['sms'],
  },
  {
    key: 'duplicatePasskey',
    description:
      "An older account of Mia's with a second factor by email and no passkey yet: add one from Security, then add mia.passkey@example.be to Mia's account and prove it with that passkey",
    firstname: 'Mia',
    lastname: 'Mertens',
    language: 'en',
    email: 'mia.passkey@example.be',
    phone: '+32470292929',
    user_id: null,
    customer_user_id: null,
    fridom_user_id: null,
    password_status: 0,
    methods: ['email'],
  },
  {
    key: 'microsoft',
    description:
      'Second factor by email, for trying Microsoft sign-in: link a Microsoft work account to it, sign in with it, unlink it',
    firstname: 'Max',
    lastname: 'Michiels',
    language: 'en',
    email: 'max.microsoft@example.be',
    phone: '+32470262626',
    user_id: 'U-1016',
    customer_user_id: null,
    fridom_user_id: null,
    password_status: 0,
    methods: ['email'],
  },
  {
    key: 'forced',
    description: 'Must set up a second factor at first sign-in',
    firstname: 'Fiona',
    lastname: 'Fontaine',
    language: 'en',
    email: 'fiona.forced@example.be',
    phone: '+32470444444',
    user_id: 'U-1006',
    customer_user_id: null,
    fridom_user_id: null,
    password_status: 0,
    mfa_forced: true,
    methods: [],
  },
  {
    key: 'offered',
    description: 'Company customer offered a second factor (may skip)',
    firstname: 'Carl',
    lastname: 'Claes',
    language: 'en',
    email: 'carl.customer@example.com',
    phone: '+32470666666',
    user_id: null,
    customer_user_id: 'C-2003',
    fridom_user_id: null,
    password_status: 0,
    mfa_customer: true,
    methods: [],
  },
  {
    key: 'later',
    description: 'Company customer offered a second factor, for trying "not now" (not asked again for 30 days)',
    firstname: 'Lea',
    lastname: 'Lambert',
    language: 'en',
    email: 'lea.later@example.com',
    phone: '+32470131313',
    user_id: null,
    customer_user_id: 'C-2004',
    fridom_user_id: null,
    password_status: 0,
    mfa_customer: true,
    methods: [],
  },
];

/** The demo server-side partner's secret: demo data, as public as the demo password. */
export const DEMO_CLIENT_SECRET = 'demo-secret-of-the-deals-partner-server';

/** First-party clients 2, 17, 51, 66 and a partner, with the exact redirect URIs they registered; and
 * the partner's server-side application, a confidential client. */
export const DEMO_CLIENTS: ClientRegistration[] = [
  {
    client_id: '2',
    name: 'Client area',
    first_party: true,
    names: { fr: 'Espace client', fr_LU: 'Espace client', nl: 'Klantenzone', de_LU: 'Kundenbereich' },
    scopes: ['clientarea', 'company', 'customerwrite', 'user'],
    redirect_uris: ['https://client.tessera.example/auth/callback', 'http://client.localhost:3000/auth/callback'],
  },
  {
    client_id: '17',
    name: 'Employee area',
    first_party: true,
    names: { fr: 'Espace salarié', fr_LU: 'Espace salarié', nl: 'Werknemerszone', de_LU: 'Mitarbeiterbereich' },
    scopes: [
      'balance',
      'history',
      'transaction',
      'activ',
      'eco',
      'emv',
      'gift',
      'myactiv',
      'myeco',
      'myemv',
      'mygift',
      'user',
      'userwrite',
    ],
    redirect_uris: ['https://my.tessera.example/auth/callback', 'http://my.localhost:3000/auth/callback'],
  },
  {
    client_id: '51',
    name: 'Administration',
    first_party: true,
    names: { fr: 'Administration', nl: 'Administratie', de_LU: 'Verwaltung' },
    scopes: ['company', 'user'],
    redirect_uris: ['https://admin.tessera.example/auth/callback'],
  },
  {
    client_id: '66',
    name: 'Fridom',
    first_party: true,
    scopes: ['fridom', 'user'],
    redirect_uris: ['https://fridom.tessera.example/auth/callback', 'http://fridom.localhost:3000/auth/callback'],
  },
  {
    client_id: 'deals-partner',
    name: 'Deals partner',
    first_party: false,
    names: {
      fr: 'Partenaire avantages',
      fr_LU: 'Partenaire avantages',
      nl: 'Voordelenpartner',
      de_LU: 'Vorteilspartner',
    },
    scopes: ['balance', 'transaction', 'user'],
    // Served from the portal itself, as every client's logo is (docs/decisions/client-logos.md).
    logo: checkLogo(readFileSync(new URL('./deals-partner-logo.png', import.meta.url))),
    policy_uri: 'https://deals.partner.example/privacy',
    tos_uri: 'https://deals.partner.example/terms',
    admin_email: 'access@deals.partner.example',
    redirect_uris: ['https://deals.partner.example/oauth/callback'],
    // Where a sign-out the partner starts (RP-initiated logout) returns to.
    post_logout_redirect_uris: ['https://deals.partner.example/signed-out'],
  },
  {
    client_id: 'deals-server',
    name: 'Deals partner server',
    first_party: false,
    names: {
      fr: 'Serveur du partenaire avantages',
      nl: 'Server van de voordelenpartner',
      de_LU: 'Server des Vorteilspartners',
    },
    scopes: ['balance'],
    admin_email: 'access@deals.partner.example',
    redirect_uris: ['https://deals.partner.example/server/callback'],
    // Confidential: it posts its secret in the token request's body (client_secret_post).
    secret: DEMO_CLIENT_SECRET,
    token_endpoint_auth_method: 'client_secret_post',
  },
];

/** A demo (or test) account with this password. */
export async function createUser(
  ctx: AppContext,
  user: Omit<DemoUser, 'key' | 'description'>,
  password: string,
): Promise<string> {
  const { email, phone, firstname, lastname, language, user_id, customer_user_id, fridom_user_id, password_status } =
    user;
  return createAccountUser(ctx.db, {
    email,
    phone,
    firstname,
    lastname,
    language,
    user_id,
    customer_user_id,
    fridom_user_id,
    password_status,
    mfa_forced: user.mfa_forced ?? false,
    mfa_customer: user.mfa_customer ?? false,
    national_register_number: user.national_register_number ?? null,
    passwordHash: await ctx.hasher.hash(password),
  });
}

/** Seeds only an empty database; returns whether it did. */
export async function seedDemo(ctx: AppContext): Promise<boolean> {
  if (await hasAnyAccount(ctx.db)) return false;
  for (const client of DEMO_CLIENTS) {
    await registerClient(ctx.db, client);
  }
  for (const user of DEMO_USERS) {
    const userId = await createUser(ctx, user, DEMO_PASSWORD);
    for (const email of user.extraEmails ?? []) await addVerifiedContact(ctx.db, userId, 'email', email);
    for (const card of DEMO_CARDS.filter((c) => c.holder === user.key)) {
      await ctx.db
        .insertInto('cards')
        .values({
          id: newId(),
          number: card.number,
          user_id: userId,
          activated_at: nowIso(),
          created_at: nowIso(),
          activation_code_hash: card.activationCode
            ? activationCodeHash(ctx.config.secretKey, card.number, card.activationCode)
            : null,
        })
        .execute();
    }
  }
  for (const card of DEMO_ONBOARDING_CARDS) {
    await ctx.db
      .insertInto('cards')
      .values({ id: newId(), ...waitingCardRow(ctx.config.secretKey, card, nowIso()), status: card.status ?? 'issued' })
      .execute();
  }
  for (const { mfaCustomer, ...invitation } of DEMO_INVITATIONS) {
    await createInvitation(ctx.db, ctx.config.secretKey, {
      ...invitation,
      mfaCustomer: mfaCustomer ?? false,
      days: MAX_INVITATION_DAYS,
    });
  }
  for (const user of DEMO_MFA_USERS) {
    const userId = await createUser(ctx, user, DEMO_PASSWORD);
    for (const [i, method] of user.methods.entries()) {
      if (method === 'totp') {
        await addMethod(ctx.db, {
          userId,
          method: 'totp',
          secret: encryptSecret(ctx.config.secretKey, DEMO_TOTP_SECRET),
          primary: i === 0,
        });
        await addMethod(ctx.db, { userId, method: 'totpRecovery' });
        await storeRecoveryKeys(ctx, ctx.db, userId, DEMO_RECOVERY_KEYS);
      } else if (method === 'card') {
        for (const card of DEMO_CARDS.filter((c) => c.holder === user.key)) {
          await ctx.db
            .insertInto('cards')
            .values({ id: newId(), number: card.number, user_id: userId, activated_at: nowIso(), created_at: nowIso() })
            .execute();
        }
        await addMethod(ctx.db, { userId, method: 'card', primary: i === 0 });
      } else {
        await addMethod(ctx.db, {
          userId,
          method,
          target: method === 'email' ? user.email : user.phone,
          primary: i === 0,
        });
      }
    }
  }
  return true;
}
