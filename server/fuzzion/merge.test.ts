// The merge of two accounts (server/fuzzion/merge.ts) on both databases: what the survivor takes
// over, the other account closed (its sessions, its password), the aliases, and the races: thirty
// merges of one pair, merges in opposite directions, merges that must be refused and write nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nowIso } from '../db/index.ts';
import { recordEvent } from '../events/record.ts';
import { ApiError } from '../http/errors.ts';
import { unclaimedPlatformId } from '../identity/accounts.ts';
import { resolveAlias } from '../identity/aliases.ts';
import { addMethod } from '../identity/second-factors.ts';
import { findOidcAccount } from '../oidc/provider.ts';
import { DEMO_PASSWORD } from '../seed/demo.ts';
import { createSession, findSession } from '../sessions/store.ts';
import { newId } from '../sessions/tokens.ts';
import { atOnce } from '../testing/concurrency.ts';
import { databaseKinds, passwordSignIn, startTestServer, type TestServer } from '../testing/harness.ts';
import { createTestUser, trustDevice } from '../testing/mfaKit.ts';
import { mergeAccounts } from './merge.ts';

const kinds = await databaseKinds();
const SURVIVOR_PASSWORD = 'Survivor-pass-2026!';

describe.each(kinds)('account merge on %s', (kind) => {
  let server: TestServer;
  let n = 0;

  beforeAll(async () => {
    server = await startTestServer(kind);
  });
  afterAll(async () => {
    await server?.stop();
  });

  type Ids = { user_id?: string; customer_user_id?: string; fridom_user_id?: string };
  /** An account of its own: primary email and phone, verified; platform ids as given. */
  async function account(options: { password?: string; language?: string; ids?: Ids } = {}) {
    n += 1;
    const tag = String(n).padStart(4, '0');
    const email = `merge.${process.pid}.${tag}@example.be`;
    const phone = `+3247399${tag}`;
    const userId = await createTestUser(
      server,
      {
        firstname: 'Merge',
        lastname: `Test ${n}`,
        language: options.language ?? 'en',
        email,
        phone,
        user_id: options.ids?.user_id ?? null,
        customer_user_id: options.ids?.customer_user_id ?? null,
        fridom_user_id: options.ids?.fridom_user_id ?? null,
      },
      options.password ?? DEMO_PASSWORD,
    );
    return { userId, email, phone, tag };
  }
  const db = () => server.ctx.db;
  const device = (userId: string) => `merge-${userId.slice(0, 12)}`;
  /** Signs in by password from a device the account trusts (its second factor is not what is tested). */
  async function signIn(userId: string, username: string, password: string) {
    await trustDevice(server, userId, device(userId));
    return passwordSignIn(server, username, password, { 'x-device-id': device(userId) });
  }
  const contactsOf = async (userId: string) => ({
    email: await db()
      .selectFrom('user_emails')
      .select(['value', 'is_default', 'verified'])
      .where('user_id', '=', userId)
      .orderBy('value')
      .execute(),
    phone: await db()
      .selectFrom('user_phones')
      .select(['value', 'is_default', 'verified'])
      .where('user_id', '=', userId)
      .orderBy('value')
      .execute(),
  });
  const methodsOf = (userId: string) =>
    db()
      .selectFrom('mfa_methods')
      .select(['method', 'target', 'is_primary'])
      .where('user_id', '=', userId)
      .orderBy('method')
      .orderBy('target')
      .execute();
  const user = (userId: string) =>
    db().selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirstOrThrow();
  /** The mails to an address, once what was queued went out (a merge called directly is no request the harness settles). */
  const mailsTo = async (to: string) => {
    await server.ctx.outbox.drain();
    return db().selectFrom('outbox').select(['subject', 'body']).where('recipient', '=', to).execute();
  };
  const merged = (userId: string) =>
    db()
      .selectFrom('security_events')
      .select('detail')
      .where('user_id', '=', userId)
      .where('type', '=', 'accounts_merged')
      .execute();
  /** A merge's outcome: 'merged', or the error code it was refused with. */
  const attempt = (survivorId: string, otherId: string) =>
    mergeAccounts(server.ctx, { survivorId, otherId }).then(
      () => 'merged',
      (error: unknown) => (error instanceof ApiError ? error.code : String(error)),
    );

  /** Everything a merge could write about these accounts, to show that a refused one wrote nothing. */
  async function footprint(userIds: string[]) {
    await server.ctx.outbox.drain();
    const of = async (
      table: 'user_emails' | 'user_phones' | 'mfa_methods' | 'cards' | 'security_events' | 'sessions',
    ) =>
      db()
        .selectFrom(table)
        .select(({ fn }) => fn.countAll<number>().as('count'))
        .where('user_id', 'in', userIds)
        .executeTakeFirstOrThrow()
        .then((r) => Number(r.count));
    return {
      users: await db().selectFrom('users').selectAll().where('id', 'in', userIds).orderBy('id').execute(),
      emails: await of('user_emails'),
      phones: await of('user_phones'),
      methods: await of('mfa_methods'),
      cards: await of('cards'),
      events: await of('security_events'),
      liveSessions: await db()
        .selectFrom('sessions')
        .select('id')
        .where('user_id', 'in', userIds)
        .where('revoked_at', 'is', null)
        .execute()
        .then((r) => r.length),
      aliases: await db()
        .selectFrom('account_aliases')
        .selectAll()
        .where((eb) => eb.or([eb('user_id', 'in', userIds), eb('value', 'in', userIds)]))
        .execute(),
      outbox: await db()
        .selectFrom('outbox')
        .select('id')
        .execute()
        .then((r) => r.length),
    };
  }

  it("gives the survivor the other account's contacts, cards, methods, platform ids and history, and closes the other", async () => {
    const survivor = await account({ password: SURVIVOR_PASSWORD, ids: { user_id: `U-S${n + 1}` } });
    const other = await account({ language: 'fr', ids: { user_id: `U-O${n + 1}`, customer_user_id: `C-O${n + 1}` } });
    // A second email of the other account, not proven: it moves unproven.
    const unproven = `merge.unproven.${process.pid}.${other.tag}@example.be`;
    await db()
      .insertInto('user_emails')
      .values({ id: newId(), user_id: other.userId, value: unproven, is_default: 0, verified: 0, created_at: nowIso() })
      .execute();
    await addMethod(db(), { userId: survivor.userId, method: 'email', target: survivor.email, primary: true });
    await addMethod(db(), { userId: survivor.userId, method: 'totp', secret: 'sealed-survivor' });
    await addMethod(db(), { userId: other.userId, method: 'email', target: other.email, primary: true });
    await addMethod(db(), { userId: other.userId, method: 'sms', target: other.phone });
    // An authenticator each: the survivor keeps its own, the other's goes with its recovery keys.
    await addMethod(db(), { userId: other.userId, method: 'totp', secret: 'sealed-other' });
    await addMethod(db(), { userId: other.userId, method: 'totpRecovery' });
    await db()
      .insertInto('recovery_keys')
      .values({ id: newId(), user_id: other.userId, key_hash: 'k', used_at: null, created_at: nowIso() })
      .execute();
    const cardId = newId();
    await db()
      .insertInto('cards')
      .values({
        id: cardId,
        number: `50650000${other.tag}0000`.slice(0, 16),
        user_id: other.userId,
        activated_at: nowIso(),
        created_at: nowIso(),
      })
      .execute();
    await recordEvent(db(), {
      type: 'email_added',
      userId: other.userId,
      ip: null,
      deviceKey: null,
      detail: { value: unproven },
    });
    // A partner's grant for the other account and a refresh token it issued.
    const grantId = `grant-${other.tag}`;
    const model = (name: string, id: string) => ({
      model: name,
      id,
      payload: JSON.stringify({ accountId: other.userId, clientId: 'partner-app', grantId, jti: id }),
      grant_id: grantId,
      uid: null,
      user_code: null,
      expires_at: null,
      consumed_at: null,
      account_id: other.userId,
      client_id: 'partner-app',
    });
    await db()
      .insertInto('oidc_models')
      .values([model('Grant', grantId), model('RefreshToken', `rt-${other.tag}`)])
      .execute();

    // The other account is signed in somewhere before the merge.
    const otherSession = await signIn(other.userId, other.email, DEMO_PASSWORD);
    expect(otherSession.statusCode).toBe(200);
    const otherToken = otherSession.json().access_token as string;
    const headers = { 'x-device-id': device(other.userId), authorization: `Bearer ${otherToken}` };
    expect((await server.app.inject({ method: 'GET', url: '/api/user', headers })).statusCode).toBe(200);

    await mergeAccounts(server.ctx, { survivorId: survivor.userId, otherId: other.userId });

    // Contacts: all of them, flags kept, the survivor's primaries still the only primaries.
    expect(await contactsOf(survivor.userId)).toEqual({
      email: [
        { value: survivor.email, is_default: 1, verified: 1 },
        { value: other.email, is_default: 0, verified: 1 },
        { value: unproven, is_default: 0, verified: 0 },
      ].toSorted((a, b) => a.value.localeCompare(b.value)),
      phone: [
        { value: survivor.phone, is_default: 1, verified: 1 },
        { value: other.phone, is_default: 0, verified: 1 },
      ].toSorted((a, b) => a.value.localeCompare(b.value)),
    });
    expect(await contactsOf(other.userId)).toEqual({ email: [], phone: [] });
    // Methods: one authenticator, the survivor's primary the only primary, nothing left behind.
    const methods = await methodsOf(survivor.userId);
    expect(methods.map((m) => `${m.method}:${m.target ?? ''}:${m.is_primary}`).toSorted()).toEqual(
      [`email:${other.email}:0`, `email:${survivor.email}:1`, `sms:${other.phone}:0`, 'totp::0'].toSorted(),
    );
    expect(await methodsOf(other.userId)).toEqual([]);
    expect(
      await db()
        .selectFrom('recovery_keys')
        .select('id')
        .where('user_id', 'in', [survivor.userId, other.userId])
        .execute(),
    ).toEqual([]);
    // Cards and platform ids.
    expect(
      (await db().selectFrom('cards').select('user_id').where('id', '=', cardId).executeTakeFirstOrThrow()).user_id,
    ).toBe(survivor.userId);
    const [after, closed] = [await user(survivor.userId), await user(other.userId)];
    expect(after).toMatchObject({
      user_id: `U-S${n - 1}`,
      customer_user_id: `C-O${n}`,
      fridom_user_id: null,
      closed_at: null,
    });
    expect(closed).toMatchObject({ user_id: null, customer_user_id: null, fridom_user_id: null });
    expect(closed.closed_at).not.toBeNull();
    // The grant now names the survivor; the token is gone; the closed account has no claims.
    const oidc = await db()
      .selectFrom('oidc_models')
      .select(['model', 'account_id', 'payload'])
      .where('grant_id', '=', grantId)
      .execute();
    expect(oidc.map((row) => [row.model, row.account_id, JSON.parse(row.payload).accountId])).toEqual([
      ['Grant', survivor.userId, survivor.userId],
    ]);
    expect(await findOidcAccount(db(), other.userId)).toBeUndefined();
    expect((await findOidcAccount(db(), survivor.userId))?.accountId).toBe(survivor.userId);
    // History: the other's events, and the merge naming the other account.
    const history = await db()
      .selectFrom('security_events')
      .select(['type', 'detail'])
      .where('user_id', '=', survivor.userId)
      .execute();
    expect(history.map((e) => e.type)).toEqual(expect.arrayContaining(['email_added', 'accounts_merged']));
    expect(JSON.parse((await merged(survivor.userId))[0]!.detail!)).toEqual({ merged_account: other.userId });
    // Both accounts hear of it, each in its language, at the primary email it had.
    expect((await mailsTo(survivor.email)).map((m) => m.subject)).toContain(
      'Another Tessera account was merged into yours',
    );
    expect((await mailsTo(other.email)).map((m) => m.subject)).toContain(
      'Votre compte Tessera a été fusionné avec un autre compte',
    );

    // The other's session is over, its password signs in nowhere, the survivor's password does.
    expect((await server.app.inject({ method: 'GET', url: '/api/user', headers })).statusCode).toBe(401);
    expect((await signIn(other.userId, other.email, DEMO_PASSWORD)).statusCode).toBe(400);
    expect((await signIn(other.userId, other.phone, DEMO_PASSWORD)).statusCode).toBe(400);
    const survivorByOldEmail = await signIn(survivor.userId, other.email, SURVIVOR_PASSWORD);
    expect(survivorByOldEmail.statusCode).toBe(200);
    const session = await db()
      .selectFrom('sessions')
      .select('user_id')
      .where('user_id', 'in', [survivor.userId, other.userId])
      .where('revoked_at', 'is', null)
      .execute();
    expect(session.map((s) => s.user_id)).toEqual([survivor.userId]);
  });

  it("keeps the survivor's names, language and bank account, and takes a second factor the other had to have", async () => {
    const survivor = await account({ language: 'nl' });
    const other = await account({ language: 'fr' });
    await db()
      .updateTable('users')
      .set({ iban: 'BE68539007547034', mfa_forced: 1, mfa_customer: 1 })
      .where('id', '=', other.userId)
      .execute();
    const before = await user(survivor.userId);
    expect(await attempt(survivor.userId, other.userId)).toBe('merged');
    const after = await user(survivor.userId);
    expect(after).toMatchObject({
      firstname: before.firstname,
      lastname: before.lastname,
      language: 'nl',
      iban: before.iban,
      mfa_forced: 1,
      mfa_customer: 1,
    });
  });

  it('gives a closed account no live session, even one opened as the merge committed (a sign-in whose code was checked meanwhile)', async () => {
    const survivor = await account();
    const other = await account();
    expect(await attempt(survivor.userId, other.userId)).toBe('merged');
    // What a sign-in racing the merge leaves: a session row written just after the merge revoked the others.
    const raced = await createSession(db(), {
      userId: other.userId,
      deviceId: null,
      clientId: null,
      ip: null,
      ttlDays: 1,
    });
    const headers = { 'x-device-id': device(other.userId), authorization: `Bearer ${raced.token}` };
    expect((await server.app.inject({ method: 'GET', url: '/api/user', headers })).statusCode).toBe(401);
    expect((await server.app.inject({ method: 'GET', url: '/api/devices', headers })).statusCode).toBe(401);
    expect(await findSession(db(), raced.token)).toBeNull();
    // The survivor's own sessions are live as ever.
    const own = await createSession(db(), {
      userId: survivor.userId,
      deviceId: null,
      clientId: null,
      ip: null,
      ttlDays: 1,
    });
    expect(
      (
        await server.app.inject({
          method: 'GET',
          url: '/api/user',
          headers: { 'x-device-id': device(survivor.userId), authorization: `Bearer ${own.token}` },
        })
      ).statusCode,
    ).toBe(200);
  });

  it("makes the other's conflicting platform ids and its sub aliases of the survivor, which no new account may take", async () => {
    const survivor = await account({ ids: { user_id: `U-S${n + 1}`, fridom_user_id: `F-S${n + 1}` } });
    const other = await account({
      ids: { user_id: `U-O${n + 1}`, fridom_user_id: `F-O${n + 1}`, customer_user_id: `C-O${n + 1}` },
    });
    const tag = n;
    await mergeAccounts(server.ctx, { survivorId: survivor.userId, otherId: other.userId });

    expect(await resolveAlias(db(), 'user_id', `U-O${tag}`)).toBe(survivor.userId);
    expect(await resolveAlias(db(), 'fridom_user_id', `F-O${tag}`)).toBe(survivor.userId);
    expect(await resolveAlias(db(), 'sub', other.userId)).toBe(survivor.userId);
    // Taken over, not aliased: the survivor holds it itself.
    expect(await resolveAlias(db(), 'customer_user_id', `C-O${tag}`)).toBeNull();
    expect((await user(survivor.userId)).customer_user_id).toBe(`C-O${tag}`);
    expect(await resolveAlias(db(), 'sub', survivor.userId)).toBeNull();
    // An alias is held: onboarding gives it to no new account.
    expect(await unclaimedPlatformId(db(), 'user_id', `U-O${tag}`)).toBeNull();
    expect(await unclaimedPlatformId(db(), 'user_id', `U-free${tag}`)).toBe(`U-free${tag}`);

    // Merged on again, the aliases lead to the new survivor: one hop.
    const third = await account();
    await mergeAccounts(server.ctx, { survivorId: third.userId, otherId: survivor.userId });
    expect(await resolveAlias(db(), 'sub', other.userId)).toBe(third.userId);
    expect(await resolveAlias(db(), 'user_id', `U-O${tag}`)).toBe(third.userId);
    expect(await resolveAlias(db(), 'sub', survivor.userId)).toBe(third.userId);
    expect((await user(third.userId)).user_id).toBe(`U-S${tag - 1}`);
  });

  it('lets exactly one of thirty simultaneous merges of one pair through, and leaves the data whole', async () => {
    const survivor = await account();
    const other = await account();
    await addMethod(db(), { userId: other.userId, method: 'email', target: other.email, primary: true });
    const outcomes = await atOnce(30, () => attempt(survivor.userId, other.userId));
    expect(outcomes.filter((o) => o === 'merged')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'merge_unavailable')).toHaveLength(29);

    const contacts = await contactsOf(survivor.userId);
    expect(contacts.email.map((c) => c.value)).toEqual([survivor.email, other.email].toSorted());
    expect(contacts.phone.map((c) => c.value)).toEqual([survivor.phone, other.phone].toSorted());
    expect(await methodsOf(survivor.userId)).toEqual([{ method: 'email', target: other.email, is_primary: 1 }]);
    expect(await merged(survivor.userId)).toHaveLength(1);
    expect(
      await db()
        .selectFrom('account_aliases')
        .select('user_id')
        .where('kind', '=', 'sub')
        .where('value', '=', other.userId)
        .execute(),
    ).toEqual([{ user_id: survivor.userId }]);
    expect(await mailsTo(survivor.email)).toHaveLength(1);
    expect(await mailsTo(other.email)).toHaveLength(1);
  });

  it('lets one of two merges in opposite directions through, without a deadlock', async () => {
    for (let round = 0; round < 3; round++) {
      const a = await account();
      const b = await account();
      const outcomes = await atOnce(20, (i) =>
        i % 2 === 0 ? attempt(a.userId, b.userId) : attempt(b.userId, a.userId),
      );
      expect(outcomes.filter((o) => o === 'merged')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'merge_unavailable')).toHaveLength(19);
      const [rowA, rowB] = [await user(a.userId), await user(b.userId)];
      // One is closed, the other holds all four contacts.
      expect([rowA.closed_at, rowB.closed_at].filter((c) => c === null)).toHaveLength(1);
      const open = rowA.closed_at === null ? a : b;
      const contacts = await contactsOf(open.userId);
      expect([...contacts.email, ...contacts.phone].map((c) => c.value).toSorted()).toEqual(
        [a.email, a.phone, b.email, b.phone].toSorted(),
      );
    }
  });

  it('refuses a merge into a closed account, from a missing one or of an account with itself, and writes nothing', async () => {
    const closedOne = await account();
    const keeper = await account();
    await mergeAccounts(server.ctx, { survivorId: keeper.userId, otherId: closedOne.userId });
    const other = await account({ ids: { user_id: `U-R${n}` } });
    await signIn(other.userId, other.email, DEMO_PASSWORD);

    const before = await footprint([closedOne.userId, keeper.userId, other.userId]);
    expect(await attempt(closedOne.userId, other.userId)).toBe('merge_unavailable');
    expect(await attempt(other.userId, closedOne.userId)).toBe('merge_unavailable');
    expect(await attempt(other.userId, 'no-such-account')).toBe('merge_unavailable');
    expect(await attempt('no-such-account', other.userId)).toBe('merge_unavailable');
    expect(await attempt(other.userId, other.userId)).toBe('merge_unavailable');
    expect(await footprint([closedOne.userId, keeper.userId, other.userId])).toEqual(before);
    expect(before.liveSessions).toBe(1);
  });
});
