// Helpers for the Microsoft sign-in tests: a test server configured for it with the Entra ID
// stand-in it trusts (server/testing/entraStandIn.ts), the browser's walk through a sign-in
// (start → stand-in → callback), and the command line on the test server's database.
import { afterAll, beforeAll, expect } from 'vitest';
import { cliDatabase, cliOn } from './cli.ts';
import { linkIdentity } from '../identity/sso.ts';
import { startEntraStandIn, type EntraStandIn, type EntraUser } from './entraStandIn.ts';
import { startTestServer, type DatabaseKind, type TestServer } from './harness.ts';
import { client } from './mfaKit.ts';

/** The cookie that binds a Microsoft sign-in to the browser that started it. */
export const SSO_COOKIE = 'tessera_sso';
/** Where Microsoft sends the browser back (inject's default Host is localhost). */
export const CALLBACK_URL = 'http://localhost/sso/microsoft/login/callback';

/** The value of the cookie `name` that a response sets, or null when it sets none. */
export const cookieOf = (setCookie: string | string[] | undefined, name: string): string | null => {
  for (const line of [setCookie ?? []].flat()) {
    const [pair] = line.split(';');
    if (pair!.startsWith(`${name}=`)) return pair!.slice(name.length + 1);
  }
  return null;
};

/** A maker of Entra users never seen before: object ids in the group `oidGroup` (one per test file,
 * so that files running at once never share an identity), named `${name} ${n}`. */
export function entraUsers(oidGroup: string, name: string): (extra?: Partial<EntraUser>) => EntraUser {
  let counter = 0;
  return (extra = {}) => {
    counter += 1;
    return {
      oid: `00000000-0000-4000-${oidGroup}-${String(process.pid).padStart(6, '0').slice(-6)}${String(counter).padStart(6, '0')}`,
      name: `${name} ${counter}`,
      ...extra,
    };
  };
}

export type MicrosoftSignInOptions = {
  /** The tenants the stand-in has an issuer for; sign-ins start at the first unless told another. */
  tenants: string[];
  /** MICROSOFT_TENANTS: the tenants the server allows, with their names (`id=Name, id`). */
  allowed: string;
  /** The client id at the stand-in; its secret is `${clientId}-secret`. */
  clientId: string;
  /** The x-device-id of every call and the `device` of every start. */
  deviceId: string;
  /** The prefix of the temporary folder of the SQLite file. */
  dirPrefix: string;
};

/**
 * Registers, in the calling `describe`, the start of the Entra ID stand-in and of a test server on
 * `kind` that trusts it for Microsoft sign-in (before all its tests), and their stop (after them).
 * Gives the server and the stand-in (once started) and the calls a test makes as a browser.
 */
export function microsoftSignIn(kind: DatabaseKind, options: MicrosoftSignInOptions) {
  const [tenant] = options.tenants;
  let server: TestServer | undefined;
  let idp: EntraStandIn | undefined;
  let database: ReturnType<typeof cliDatabase> | undefined;

  beforeAll(async () => {
    idp = await startEntraStandIn({
      tenants: options.tenants,
      clientId: options.clientId,
      clientSecret: `${options.clientId}-secret`,
      redirectUris: [CALLBACK_URL],
    });
    database = cliDatabase(kind, options.dirPrefix);
    server = await startTestServer(kind, {
      // The callback Microsoft sends the browser back to is this origin's.
      PUBLIC_ORIGIN_BE: 'http://localhost',
      MICROSOFT_CLIENT_ID: options.clientId,
      MICROSOFT_CLIENT_SECRET: `${options.clientId}-secret`,
      MICROSOFT_TENANTS: options.allowed,
      MICROSOFT_AUTHORITY: idp.authority,
      // A file, so that the command line opens the same database.
      ...database.env,
    });
  });
  afterAll(async () => {
    await server?.stop();
    await idp?.close();
    database?.remove();
  });

  const started = () => {
    if (!server || !idp) throw new Error('the Microsoft sign-in test server is not started yet');
    return { server, idp };
  };
  const cookie = (browser: string | null | undefined) => (browser ? { cookie: `${SSO_COOKIE}=${browser}` } : {});

  const kit = {
    get server(): TestServer {
      return started().server;
    },
    get idp(): EntraStandIn {
      return started().idp;
    },

    /** The start of a sign-in (at the first tenant unless `query` names another), in `browser` if
     * given: the answer, the browser's binding cookie, and where it sends the browser. */
    async start(query: Record<string, string> = {}, browser?: string) {
      const res = await kit.server.app.inject({
        method: 'GET',
        url: `/sso/microsoft/login?${new URLSearchParams({ tenant: tenant!, device: options.deviceId, ...query })}`,
        headers: cookie(browser),
      });
      return {
        res,
        browser: cookieOf(res.headers['set-cookie'], SSO_COOKIE) ?? browser ?? null,
        location: res.headers.location as string | undefined,
      };
    },

    /** The browser following the way back from Microsoft to the callback, with its binding cookie if any. */
    callback: (url: URL, browser: string | null) =>
      kit.server.app.inject({ method: 'GET', url: `${url.pathname}${url.search}`, headers: cookie(browser) }),

    /** A sign-in started by a fresh browser and authorized at the stand-in as `user`: the browser,
     * and the way back, not yet followed. */
    async authorized(user: EntraUser, query: Record<string, string> = {}) {
      const begun = await kit.start(query);
      expect(begun.res.statusCode).toBe(303);
      kit.idp.signInAs(user);
      return { browser: begun.browser!, back: await kit.idp.authorize(begun.location!) };
    },

    /** A whole sign-in as `user`: the callback's answer, the browser, the way back and where it leads. */
    async signIn(user: EntraUser, query: Record<string, string> = {}) {
      const { browser, back } = await kit.authorized(user, query);
      const res = await kit.callback(back, browser);
      return { res, browser, back, location: res.headers.location as string };
    },

    /** A call to the API from the test's device, with a session token and a binding cookie if given. */
    api: (
      method: 'GET' | 'POST' | 'DELETE',
      url: string,
      call: { token?: string; browser?: string; payload?: object } = {},
    ) =>
      kit.server.app.inject({
        method,
        url,
        headers: {
          'x-device-id': options.deviceId,
          ...(call.token ? { authorization: `Bearer ${call.token}` } : {}),
          ...cookie(call.browser),
        },
        ...(call.payload ? { payload: call.payload } : {}),
      }),

    /** A password sign-in (of an account without a second factor) from the test's device: its token. */
    async passwordSession(email: string) {
      const res = await client(kit.server).password(email, options.deviceId);
      expect(res.statusCode).toBe(200);
      return res.json().access_token as string;
    },

    /** Links `user` to the account straight in the database (no sign-in): the identity's id. */
    linkDirectly: (userId: string, user: EntraUser, tenantId = tenant!) =>
      kit.server.ctx.db.transaction().execute((trx) =>
        linkIdentity(trx, userId, {
          provider: 'microsoft',
          tenantId,
          objectId: user.oid,
          email: user.email ?? null,
          name: user.name ?? null,
        }),
      ),

    /** Runs the command line on the server's database: its exit code and all it wrote. */
    cli: (...argv: string[]) => cliOn(kit.server, ...argv),
  };
  return kit;
}

/** The ticket of a redirect to the page that offers to link an identity. */
export const linkTicketOf = (location: string) => new URL(location, 'http://localhost').searchParams.get('ticket')!;
