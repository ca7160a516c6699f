// Typed text shown back, from the attacker's side, on both databases: hostile markup in every
// free-text field a person, a partner or an identity provider can set (names, a partner's name and
// links, a browser's user agent, a Microsoft identity's claims) never comes back as live markup:
// refused where the rules refuse it; in the mails (read from a real SMTP peer) only as text; in the
// export only as JSON data that downloads; in the server-rendered page and the authorisation
// server's own pages only escaped.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOOT_ELEMENT_ID, LANGUAGE_COOKIE } from '../../contract/constants.ts';
import type { Boot } from '../../contract/schemas.ts';
import { nowIso } from '../db/index.ts';
import { addMethod } from '../identity/second-factors.ts';
import { OidcAdapter } from '../oidc/adapter.ts';
import { DEMO_PASSWORD } from '../seed/demo.ts';
import { newId } from '../sessions/tokens.ts';
import { databaseKinds, passwordSignIn, startTestServer, type TestServer } from '../testing/harness.ts';
import { freshMfa, makeUser, sessionFor } from '../testing/mfaKit.ts';
import { makeCard, onboardingClient } from '../testing/onboardingKit.ts';
import { startSmtp } from '../testing/peers.ts';
import { cliDatabase, cliOn } from '../testing/cli.ts';

/** What an attacker types where free text goes. */
const IMG = '<img src=x onerror=alert(1)>';
const SCRIPT = '"><script>alert(1)</script>';
const TEMPLATE = "{{constructor.constructor('alert(1)')()}}";
const HOSTILE = [IMG, SCRIPT, TEMPLATE];
/** Where a link could be shown. */
const HOSTILE_LINKS = [
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)//https://x.example/',
  'data:text/html,<script>alert(1)</script>',
  'vbscript:msgbox(1)',
];
/** A browser's user agent that names the browser as markup (bowser takes the product name as it is). */
const HOSTILE_AGENT = `${IMG}/1.0 (Windows NT 10.0; Win64; x64)`;
/** What a live element of the values above looks like in HTML (escaped, their text may stay: no element). */
const LIVE = [/<img\b/i, /<svg\b/i, /<script>alert/i, /<[a-z][^<>]*\son(?:error|load)\s*=/i];

// ---- A mail as the SMTP peer received it ---------------------------------------------------------

type Part = { type: string; body: string };

/** The headers of a MIME entity, unfolded, by lower-cased name, and its body. */
function entity(raw: string): { headers: Map<string, string>; body: string } {
  const split = raw.search(/\r?\n\r?\n/);
  const head = split < 0 ? raw : raw.slice(0, split);
  const body = split < 0 ? '' : raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0) headers.set(line.slice(0, at).trim().toLowerCase(), line.slice(at + 1).trim());
  }
  return { headers, body };
}

function decodeBody(body: string, encoding: string): string {
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    const bytes = body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

/** The leaf parts of a mail (a multipart one's, recursively), each decoded. */
function partsOf(raw: string): Part[] {
  const { headers, body } = entity(raw);
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    return body
      .split(`--${boundary}`)
      .slice(1)
      .filter((chunk) => !chunk.startsWith('--'))
      .flatMap((chunk) => partsOf(chunk.replace(/^\r?\n/, '')));
  }
  return [
    {
      type: type.split(';')[0]!.trim().toLowerCase(),
      body: decodeBody(body, (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase()),
    },
  ];
}

/** A header's text, its RFC 2047 encoded words decoded. */
function headerText(raw: string, name: string): string {
  const value = entity(raw).headers.get(name) ?? '';
  return value.replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=\s*/g, (_, _charset: string, kind: string, text: string) =>
    kind.toUpperCase() === 'B'
      ? Buffer.from(text, 'base64').toString('utf8')
      : Buffer.from(
          text
            .replace(/_/g, ' ')
            .replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))),
          'latin1',
        ).toString('utf8'),
  );
}

/** A mail that shows `typed`: as plain text in a text part; in an HTML part, if any, only escaped. */
function expectShownAsText(raw: string, typed: string) {
  const parts = partsOf(raw);
  expect(parts.length).toBeGreaterThan(0);
  // Nothing but text and HTML parts (no attachment a client might open).
  for (const part of parts) expect(['text/plain', 'text/html']).toContain(part.type);
  expect(parts.filter((part) => part.type === 'text/plain').some((part) => part.body.includes(typed))).toBe(true);
  for (const part of parts.filter((p) => p.type === 'text/html')) {
    for (const live of LIVE) expect(part.body).not.toMatch(live);
    expect(part.body).toContain(typed.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));
  }
}

// ---- A built app for the page -------------------------------------------------------------------

const spaDir = mkdtempSync(join(tmpdir(), 'tessera-escaping-spa-'));
mkdirSync(join(spaDir, 'assets'));
writeFileSync(
  join(spaDir, 'index.html'),
  '<!doctype html><html lang="en"><head><title>Tessera</title></head><body><div id="root"></div><script type="module" src="/assets/index-abc.js"></script></body></html>',
);
writeFileSync(join(spaDir, 'assets', 'index-abc.js'), 'console.info(1)');
writeFileSync(join(spaDir, 'prerendered.json'), JSON.stringify({ app: [], locales: {}, screens: {} }));
/** Script elements: the template's one and the boot element, whatever is written into the page. */
const scriptsIn = (html: string) => (html.match(/<script\b/gi) ?? []).length;

/** The page without its boot element (whose JSON is checked on its own). */
const outsideBoot = (page: string) =>
  page.replace(new RegExp(`<script type="application/json" id="${BOOT_ELEMENT_ID}">.*?</script>`, 's'), '');
/** The boot element's JSON as written: nothing in it can end the element or open a comment. */
const bootText = (page: string) =>
  new RegExp(`<script type="application/json" id="${BOOT_ELEMENT_ID}">(.*?)</script>`, 's').exec(page)?.[1] ?? '';

function bootOf(page: string): Boot {
  const json = new RegExp(`<script type="application/json" id="${BOOT_ELEMENT_ID}">(.*?)</script>`, 's').exec(
    page,
  )?.[1];
  if (!json) throw new Error('no boot element in the page');
  return JSON.parse(json) as Boot;
}

afterAll(() => rmSync(spaDir, { recursive: true, force: true }));

describe.each(await databaseKinds())('typed text shown back on %s', (kind) => {
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let database: ReturnType<typeof cliDatabase>;

  beforeAll(async () => {
    smtp = await startSmtp();
    database = cliDatabase(kind, 'tessera-escaping-');
    server = await startTestServer(kind, {
      SMTP_URL: smtp.url,
      SPA_DIR: spaDir,
      PUBLIC_ORIGIN_BE: 'http://localhost',
      // A file, so that the command line opens the same database.
      ...database.env,
    });
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.stop();
    database?.remove();
  });

  const cli = (...argv: string[]) => cliOn(server, ...argv);
  const call = (
    method: 'GET' | 'PUT' | 'POST' | 'DELETE',
    url: string,
    auth: Record<string, string>,
    payload?: object,
  ) => server.app.inject({ method, url, headers: auth, ...(payload ? { payload } : {}) });
  /** A fresh account named by the attacker (as legacy data or an import would hold it), signed in. */
  async function named(firstname: string, lastname: string, options: { methods?: ('email' | 'totp')[] } = {}) {
    const user = await makeUser(server, { methods: options.methods ?? [] });
    await server.ctx.db.updateTable('users').set({ firstname, lastname }).where('id', '=', user.userId).execute();
    const device = `escaping-${user.userId.slice(0, 8)}`;
    const token = await sessionFor(server, user.userId, device);
    return { ...user, device, auth: { 'x-device-id': device, authorization: `Bearer ${token}` } };
  }
  const mailsTo = (to: string) => smtp.mails.filter((mail) => mail.to === to);

  // ---- Where a person types a name ----------------------------------------------------------------

  it('refuses markup as a name or a bank account in the profile, and keeps what it had', async () => {
    const user = await named('Anna', 'Safe');
    for (const value of [...HOSTILE, HOSTILE_LINKS[0]!]) {
      for (const field of ['firstname', 'lastname'] as const) {
        const res = await call('PUT', '/api/user', user.auth, {
          firstname: 'Anna',
          lastname: 'Safe',
          birthdate: null,
          gender: null,
          language: 'en',
          [field]: value,
        });
        expect(res.statusCode, value).toBe(400);
        expect(res.json()).toMatchObject({ code: 'validation_failed', fields: [{ field, code: 'invalid' }] });
      }
    }
    // The bank account has no free text: an IBAN made of markup is no IBAN.
    await freshMfa(server, user.userId);
    for (const value of HOSTILE) {
      const iban = await call('PUT', '/api/user/iban', user.auth, { country: 'BE', iban: value });
      expect(iban.statusCode, value).toBe(422);
      expect(iban.json().code).toBe('iban_invalid');
    }
    expect(
      await server.ctx.db
        .selectFrom('users')
        .select(['firstname', 'lastname', 'iban'])
        .where('id', '=', user.userId)
        .executeTakeFirstOrThrow(),
    ).toEqual({ firstname: 'Anna', lastname: 'Safe', iban: null });
  });

  it('refuses markup as a name at the onboarding too, as the profile does', async () => {
    const api = onboardingClient(server, { mails: smtp.mails, messages: [] }, 'escaping-onboarding-01');
    const card = await makeCard(server);
    const started = await api.card(card.number, card.activationCode);
    expect(started.statusCode).toBe(201);
    const flow = started.json().flow as string;
    expect((await api.terms(flow)).statusCode).toBe(204);
    for (const value of [...HOSTILE, HOSTILE_LINKS[0]!]) {
      const first = await api.profile(flow, value, 'Nieuw');
      expect(first.statusCode, value).toBe(400);
      expect(first.json()).toMatchObject({
        code: 'validation_failed',
        fields: [{ field: 'firstname', code: 'invalid' }],
      });
      expect((await api.profile(flow, 'Nina', value)).json()).toMatchObject({
        code: 'validation_failed',
        fields: [{ field: 'lastname', code: 'invalid' }],
      });
    }
    // Nothing of it was kept: the flow has the card's names, and a real name still goes through.
    const stored = await server.ctx.db
      .selectFrom('onboarding_flows')
      .select('id')
      .where((eb) =>
        eb.or([
          eb('firstname', 'in', [...HOSTILE, HOSTILE_LINKS[0]!]),
          eb('lastname', 'in', [...HOSTILE, HOSTILE_LINKS[0]!]),
        ]),
      )
      .execute();
    expect(stored).toEqual([]);
    expect((await api.profile(flow, ' Anne-Sophie ', "O'Neill")).statusCode).toBe(204);
  });

  // ---- A partner's name and links, through the command line --------------------------------------

  it('refuses a partner link that is not http(s), and stores nothing of the client', async () => {
    for (const link of HOSTILE_LINKS) {
      for (const option of ['--policy-uri', '--tos-uri', '--redirect-uri']) {
        const clientId = `bad-link-${option.slice(2, 6)}`;
        const args = [
          'clients',
          'add',
          clientId,
          '--name',
          'Bad link',
          ...(option === '--redirect-uri' ? [] : ['--redirect-uri', 'https://bad.example/cb']),
          option,
          link,
        ];
        const { code, out } = await cli(...args);
        expect(code, `${option} ${link}`).toBe(1);
        expect(out).toMatch(/must be https|is not an absolute URI|spaces or control characters/);
        expect(
          await server.ctx.db
            .selectFrom('oauth_clients')
            .select('client_id')
            .where('client_id', '=', clientId)
            .execute(),
        ).toEqual([]);
      }
    }
    // Nor can an edit bring one in.
    expect(
      (await cli('clients', 'add', 'edited-partner', '--name', 'Edited', '--redirect-uri', 'https://edited.example/cb'))
        .code,
    ).toBe(0);
    expect((await cli('clients', 'edit', 'edited-partner', '--policy-uri', HOSTILE_LINKS[0]!)).code).toBe(1);
    expect(
      (
        await server.ctx.db
          .selectFrom('oauth_clients')
          .select('policy_uri')
          .where('client_id', '=', 'edited-partner')
          .executeTakeFirstOrThrow()
      ).policy_uri,
    ).toBeNull();
  });

  // ---- Mails -----------------------------------------------------------------------------------

  it('mails the administrator an access request naming a hostile person and application as text only, to the administrator only', async () => {
    const clientName = `${SCRIPT} ${IMG}`;
    const { code } = await cli(
      'clients',
      'add',
      'hostile-partner',
      '--name',
      clientName,
      '--redirect-uri',
      'https://hostile.partner.example/cb',
      '--admin-email',
      'admin@hostile.partner.example',
      '--scope',
      'balance',
    );
    expect(code).toBe(0);
    const person = await named(IMG, TEMPLATE);
    const before = smtp.mails.length;
    const res = await call('POST', '/api/partners/hostile-partner/access-requests', person.auth);
    expect(res.statusCode).toBe(200);
    const mails = smtp.mails.slice(before);
    expect(mails.map((mail) => mail.to)).toEqual(['admin@hostile.partner.example']);
    const raw = mails[0]!.raw;
    expect(headerText(raw, 'subject')).toBe(`Access request for ${clientName}`);
    expectShownAsText(raw, `${IMG} ${TEMPLATE} (${person.email})`);
    expectShownAsText(raw, `access to ${clientName} (client hostile-partner)`);
    // The partner's own answer is JSON: its name is data.
    const partner = await server.app.inject({
      method: 'GET',
      url: '/api/partners/hostile-partner',
      headers: { 'x-device-id': person.device },
    });
    expect(partner.headers['content-type']).toMatch(/^application\/json/);
    expect(partner.json().client.name).toBe(clientName);
  });

  it('mails a sign-in from a new device whose browser is named by markup as text only', async () => {
    const user = await makeUser(server, { methods: [] });
    const signIn = (device: string, agent: string) =>
      passwordSignIn(server, user.email, DEMO_PASSWORD, { 'x-device-id': device, 'user-agent': agent });
    expect(
      (
        await signIn(
          'escaping-first-01',
          'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
        )
      ).statusCode,
    ).toBe(200);
    await server.ctx.signInRecords.drain();
    const before = mailsTo(user.email).length;
    const second = await signIn('escaping-new-01', HOSTILE_AGENT);
    expect(second.statusCode).toBe(200);
    await server.ctx.signInRecords.drain();
    await server.ctx.outbox.drain();
    const mails = mailsTo(user.email).slice(before);
    expect(mails).toHaveLength(1);
    expect(headerText(mails[0]!.raw, 'subject')).toBe('New sign-in to your Tessera account');
    expectShownAsText(mails[0]!.raw, `Device: ${IMG} 1.0, Windows 10`);
    // The devices list, as the Security screen reads it, is JSON data.
    const list = await call('GET', '/api/devices', {
      'x-device-id': 'escaping-new-01',
      authorization: `Bearer ${second.json().access_token as string}`,
    });
    expect(list.headers['content-type']).toMatch(/^application\/json/);
    expect(list.json().data.find((device: { current: boolean }) => device.current)).toMatchObject({
      browser: `${IMG} 1.0`,
    });
  });

  it('tells the former primary address of a new primary that looks like markup as text only', async () => {
    const user = await named('Mark', 'Up', { methods: ['email'] });
    // What they still take (HTML's specials & and ' among them), held from before (an import, say).
    const hostile = "&'/onload=alert`1`@evil.example";
    await server.ctx.db
      .insertInto('user_emails')
      .values({ id: newId(), user_id: user.userId, value: hostile, is_default: 0, verified: 1, created_at: nowIso() })
      .execute();
    await addMethod(server.ctx.db, { userId: user.userId, method: 'email', target: hostile, primary: false });
    await freshMfa(server, user.userId);
    // Markup a mailer reads as address syntax is refused by the email rules themselves.
    const refused = await call('POST', '/api/user/login', user.auth, { email: '"><svg/onload=alert(1)>@evil.example' });
    expect(refused.json()).toMatchObject({ code: 'invalid_email' });
    const before = mailsTo(user.email).length;
    const res = await call('POST', '/api/user/login/primary', user.auth, { email: hostile });
    expect(res.statusCode).toBeLessThan(300);
    const mails = mailsTo(user.email).slice(before);
    expect(mails).toHaveLength(1);
    expectShownAsText(mails[0]!.raw, `The primary address of your Tessera account is now ${hostile}.`);
  });

  // ---- The export ------------------------------------------------------------------------------

  it('exports hostile text as JSON data in a download, never as a page', async () => {
    const user = await named(IMG, SCRIPT);
    await server.ctx.db
      .updateTable('devices')
      .set({ user_agent: HOSTILE_AGENT })
      .where('user_id', '=', user.userId)
      .execute();
    await server.ctx.db
      .updateTable('sessions')
      .set({ user_agent: HOSTILE_AGENT })
      .where('user_id', '=', user.userId)
      .execute();
    await freshMfa(server, user.userId);
    const res = await call('GET', '/api/user/export', user.auth);
    expect(res.statusCode).toBe(200);
    // A download the browser saves, as JSON, never sniffed into HTML, never framed, never kept.
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="tessera-account-\d{4}-\d{2}-\d{2}\.json"$/,
    );
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['cache-control']).toBe('no-store');
    // Not CSV: no cell a spreadsheet would evaluate. The values come back exactly as typed.
    const data = res.json();
    expect(data.account).toMatchObject({ firstname: IMG, lastname: SCRIPT });
    expect(data.devices[0]).toMatchObject({ user_agent: HOSTILE_AGENT, browser: `${IMG} 1.0` });
    expect(data.sessions.map((s: { browser: string }) => s.browser)).toContain(`${IMG} 1.0`);
  });

  // ---- The page --------------------------------------------------------------------------------

  it('writes a hostile application name into the page only inside its JSON, unable to close the element', async () => {
    const clientName = `</script>${IMG}<!--${SCRIPT}`;
    expect(
      (
        await cli(
          'clients',
          'add',
          'page-partner',
          '--name',
          clientName,
          '--name-fr',
          `${TEMPLATE}</SCRIPT >`,
          '--redirect-uri',
          'https://page.partner.example/cb',
        )
      ).code,
    ).toBe(0);
    await new OidcAdapter(server.ctx.db, 'Interaction').upsert(
      'escaping-interaction',
      { params: { client_id: 'page-partner' } },
      60,
    );
    for (const [language, name] of [
      ['en', clientName],
      ['fr', `${TEMPLATE}</SCRIPT >`],
    ] as const) {
      const res = await server.app.inject({
        method: 'GET',
        url: '/login/email?redirect=%2Foidc%2Finteraction%2Fescaping-interaction',
        headers: { 'accept-language': language },
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      // The app gets the name exactly (and React shows it as text); the page carries it only as JSON data.
      expect(bootOf(res.body).signingInTo).toMatchObject({ client_id: 'page-partner', name });
      expect(bootText(res.body)).not.toContain('<');
      // The page's elements are the template's and the boot element: nothing was opened or closed by the name.
      expect(scriptsIn(res.body)).toBe(2);
      expect((res.body.match(/<\/script\s*>/gi) ?? []).length).toBe(2);
      expect(res.body).not.toContain('<!--');
      for (const live of LIVE) expect(outsideBoot(res.body)).not.toMatch(live);
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers['content-security-policy']).not.toContain('unsafe-inline');
    }
  });

  it("never writes a signed-in person's names, nor what the request says, into the page", async () => {
    const user = await named(IMG, SCRIPT);
    const token = user.auth.authorization.slice('Bearer '.length);
    for (const [url, headers] of [
      ['/user/dashboard', { cookie: `${server.ctx.cookieName}=${token}` }],
      ['/profile', { cookie: `${server.ctx.cookieName}=${token}`, 'accept-language': `${IMG}, fr` }],
      [
        `/login/email?redirect=${encodeURIComponent(SCRIPT)}&x=${encodeURIComponent(IMG)}`,
        { cookie: `${LANGUAGE_COOKIE}=${encodeURIComponent(SCRIPT)}` },
      ],
      [`/${encodeURIComponent(IMG)}`, { host: 'account.localhost', 'user-agent': HOSTILE_AGENT }],
    ] as const) {
      const res = await server.app.inject({ method: 'GET', url, headers });
      expect(res.statusCode, url).toBe(200);
      for (const typed of [...HOSTILE, 'onerror', 'alert(1)']) expect(outsideBoot(res.body), url).not.toContain(typed);
      // The boot element carries the config only as JSON, and no name of the person.
      expect(bootText(res.body)).not.toContain('<');
      expect(JSON.stringify(bootOf(res.body))).not.toContain(SCRIPT);
      expect(scriptsIn(res.body)).toBe(2);
    }
  });

  // ---- The authorisation server's own pages ------------------------------------------------------

  it("escapes a hostile partner name on the authorisation server's own pages, and what the request says on its error page", async () => {
    const clientName = `${IMG}${SCRIPT}`;
    expect(
      (
        await cli(
          'clients',
          'add',
          'logout-partner',
          '--name',
          clientName,
          '--redirect-uri',
          'https://logout.partner.example/cb',
        )
      ).code,
    ).toBe(0);
    const success = await server.app.inject({
      method: 'GET',
      url: '/oidc/session/end/success?client_id=logout-partner',
    });
    // The sign-out's end is our own screen (React writes the name as text): the provider's page
    // only sends the browser there, naming the client by its id.
    expect(success.statusCode).toBe(303);
    expect(success.headers.location).toBe('/logout/done?client_id=logout-partner');
    for (const live of LIVE) expect(success.body).not.toMatch(live);
    // A request made of markup gets the error page, which says nothing of it live.
    const query = new URLSearchParams({
      client_id: IMG,
      redirect_uri: SCRIPT,
      response_type: 'code',
      scope: 'openid',
      state: IMG,
      code_challenge: 'a'.repeat(43),
      code_challenge_method: 'S256',
    });
    const refused = await server.app.inject({ method: 'GET', url: `/oidc/auth?${query}` });
    expect(refused.statusCode).toBe(400);
    expect(refused.headers.location).toBeUndefined();
    for (const live of LIVE) expect(refused.body).not.toMatch(live);
    expect(refused.body).not.toContain('<script>alert(1)');
  });
});
