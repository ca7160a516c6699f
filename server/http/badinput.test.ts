// Bad input, generated from the routes' own JSON Schemas (the contract's valibot schemas as Fastify
// got them), against every API endpoint, anonymous and signed in: no answer is a 5xx, and the
// account tables stay as they were. The same for every endpoint of the OpenID Provider under /oidc
// (from its discovery document): its parameters, content types, credentials and cookies drawn
// good and bad; no 5xx, the account tables untouched, and a refused request stores nothing.
// `npm run fuzz` runs many more cases (FUZZ_RUNS per endpoint).
import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '../../contract/errors.ts';
import { PLAIN_TEXT } from '../../contract/schemas.ts';
import { nowIso } from '../db/index.ts';
import { registerClient } from '../oidc/clients.ts';
import { DEMO_CLIENTS, DEMO_PASSWORD } from '../seed/demo.ts';
import { createSession } from '../sessions/store.ts';
import { DEVICE, databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { ISSUER_ENDPOINTS } from '../testing/oidcKit.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const STATS: Record<string, number> | null = process.env.FUZZ_STATS ? {} : null;
// With FUZZ_STATS set, how often each endpoint answered each status and error, printed at the end.
const count = (key: string) => {
  if (STATS) STATS[key] = (STATS[key] ?? 0) + 1;
};
const printStats = () => {
  if (STATS)
    console.info(
      Object.entries(STATS)
        .sort()
        .map(([k, n]) => `${k}: ${n}`)
        .join('\n'),
    );
};
const ACCOUNT_TABLES = [
  'users',
  'user_emails',
  'user_phones',
  'passwords',
  'mfa_methods',
  'cards',
  'invitations',
] as const;

type Schema = {
  type?: string;
  enum?: unknown[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, Schema>;
  required?: string[];
};
type Endpoint = {
  method: string;
  path: string;
  params: Record<string, Schema>;
  query: Record<string, Schema>;
  queryRequired: string[];
  body: Schema | null;
};
type Mode = 'anonymous' | 'signed-in' | 'stepped-up';

/** Every API route the server registered, from its OpenAPI document (hidden routes take no input). */
function endpointsOf(doc: {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Array<{ in: string; name: string; required?: boolean; schema: Schema }>;
        requestBody?: { content: Record<string, { schema: Schema }> };
      }
    >
  >;
}): Endpoint[] {
  return Object.entries(doc.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, op]) => {
      const parameters = op.parameters ?? [];
      const byPlace = (place: string) =>
        Object.fromEntries(parameters.filter((p) => p.in === place).map((p) => [p.name, p.schema]));
      return {
        method: method.toUpperCase(),
        path: `/api${path}`,
        params: byPlace('path'),
        query: byPlace('query'),
        queryRequired: parameters.filter((p) => p.in === 'query' && p.required).map((p) => p.name),
        body: op.requestBody?.content['application/json']?.schema ?? null,
      };
    }),
  );
}

// ---- Values --------------------------------------------------------------------------------------

/** A number JSON can carry but JavaScript cannot hold as it is, written into the body verbatim. */
class RawNumber {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

const ODD = [
  '\u0000',
  'a\u0000b',
  '\u0001',
  '\u0008',
  '\t',
  '\n',
  '\r\n',
  '\u001b[31m',
  '\u007f',
  '\u0085',
  '\u009f',
  '\u200b',
  '\u202e',
  '\ufeff',
  '\u2028',
  '\ud800',
  '\udfff',
  'a\udc00b',
  'e\u0301',
  '\u{1f600}',
  '\uffff',
  '\u{10ffff}',
  'İ',
  'ß',
  'ﬀ',
  '%00',
  '\\u0000',
  "'; drop table users; --",
  '../../etc/passwd',
  '<script>',
  '',
  ' ',
  '   ',
];

const control = fc
  .oneof(fc.integer({ min: 0, max: 0x1f }), fc.integer({ min: 0x7f, max: 0x9f }))
  .map((c) => String.fromCharCode(c));

/** Strings that have no business in a field: control characters, lone surrogates, odd Unicode, long runs. */
const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...ODD),
  fc
    .tuple(fc.string({ maxLength: 12 }), fc.oneof(control, fc.constantFrom(...ODD)), fc.string({ maxLength: 12 }))
    .map((parts) => parts.join('')),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc
    .tuple(fc.constantFrom('a', '\u0000', 'é', '\u{1f600}', '5', '@', ' '), fc.integer({ min: 100, max: 6000 }))
    .map(([c, n]) => c.repeat(n)),
  fc.tuple(fc.constantFrom('a', '9'), fc.integer({ min: 200, max: 400 })).map(([c, n]) => `${c.repeat(n)}@example.com`),
);

const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant([]),
  fc.constant({}),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  fc.constantFrom(
    ...['1e400', '-1e400', '99999999999999999999999', '9007199254740993', '1e308', '-0', '0.5', '2147483648'].map(
      (n) => new RawNumber(n),
    ),
  ),
);

/** A value of the field's own shape, now and then one the server knows (a real flow, ticket or id). */
function shaped(schema: Schema, known: Record<string, string[]>, name: string): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number':
      return fc.oneof(
        fc.integer({ min: schema.minimum ?? -1000, max: Math.min(schema.maximum ?? 1000, 2 ** 31 - 1) }),
        fc.constantFrom(2 ** 31, 2 ** 53 - 1, 1e21, -(2 ** 31) - 1),
      );
    case 'object': {
      const properties = schema.properties ?? {};
      const model = Object.fromEntries(
        Object.entries(properties).map(([key, value]) => [key, shaped(value, known, key)]),
      );
      return fc.record(model, { requiredKeys: schema.required ?? [] });
    }
    default: {
      const own = known[name] ?? [];
      const max = schema.maxLength ?? 64;
      // The plain-text pattern of every text field is a bound, not a shape: draw text of any kind.
      const plain =
        schema.pattern && schema.pattern !== PLAIN_TEXT.source
          ? fc.stringMatching(new RegExp(schema.pattern, 'u')).filter((s) => s.length <= max)
          : schema.format === 'uuid'
            ? fc.uuid()
            : fc.oneof(
                fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(max, 64) }),
                fc.constantFrom('x', 'é', '\u{1f600}', '9', '\u0130').map((c) => c.repeat(max)),
              );
      return own.length > 0 ? fc.oneof(fc.constantFrom(...own), plain) : plain;
    }
  }
}

/** One field of a valid-looking value made bad, or a bad value altogether. */
function spoiled(schema: Schema | null, valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const fields = Object.entries(schema?.properties ?? {});
  const options: Array<fc.Arbitrary<unknown>> = [valid, fc.oneof(wrongType, nastyString)];
  if (fields.length > 0) {
    const field = fc.constantFrom(...fields.map(([name]) => name));
    const replace = (bad: fc.Arbitrary<unknown>) =>
      fc.tuple(valid, field, bad).map(([value, name, b]) => ({ ...(value as object), [name]: b }));
    options.push(
      replace(nastyString),
      replace(nastyString),
      replace(wrongType),
      // A string just over its field's bound.
      fc.tuple(valid, field, fc.integer({ min: 1, max: 300 })).map(([value, name, extra]) => ({
        ...(value as object),
        [name]: 'x'.repeat((schema!.properties![name]!.maxLength ?? 64) + extra),
      })),
      // A required field missing, or a field nobody asked for.
      fc.tuple(valid, field).map(([value, name]) => {
        const copy = { ...(value as Record<string, unknown>) };
        delete copy[name];
        return copy;
      }),
      fc
        .tuple(valid, fc.string({ maxLength: 10 }), fc.oneof(nastyString, wrongType))
        .map(([value, name, b]) => ({ ...(value as object), [name || 'extra']: b })),
      // The same body inside an array, or under a prototype-polluting key.
      valid.map((value) => [value]),
      valid.map((value) =>
        JSON.parse(`{"__proto__": {"admin": true}, "constructor": {"prototype": {}}, "v": ${JSON.stringify(value)}}`),
      ),
    );
  }
  return fc.oneof(...options);
}

function toJson(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, v) => (v instanceof RawNumber ? `@@raw${raws.push(v.text) - 1}@@` : v));
  return text.replace(/"@@raw(\d+)@@"/g, (_m, i) => raws[Number(i)]!);
}

/** Percent-encoding of the UTF-8 bytes (encodeURIComponent throws on lone surrogates). */
function encode(value: string): string {
  return [...Buffer.from(value, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
}

function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  return value instanceof RawNumber ? value.text : (toJson(value) ?? '');
}

function queryString(value: unknown): string {
  if (value === undefined) return '';
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof RawNumber)
    return `?${encode(asText(value))}`;
  const parts = Object.entries(value).flatMap(([key, v]) =>
    (Array.isArray(v) ? v : [v]).map((item) => `${encode(key)}=${encode(asText(item))}`),
  );
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

// ---- The run -------------------------------------------------------------------------------------

async function digest(server: TestServer): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of ACCOUNT_TABLES) {
    const rows = (await server.ctx.db.selectFrom(table).selectAll().execute()).map((row) => JSON.stringify(row)).sort();
    out[table] = createHash('sha256').update(rows.join('\n')).digest('base64url');
  }
  return out;
}

/** Values the server would recognise, so that generated input also reaches past the first lookup. */
async function knownValues(server: TestServer): Promise<{ known: Record<string, string[]>; emmaId: string }> {
  const post = (url: string, payload: object) => server.app.inject({ method: 'POST', url, headers: DEVICE, payload });
  const emmaId = (
    await server.ctx.db
      .selectFrom('user_emails')
      .select('user_id')
      .where('value', '=', 'emma.peeters@example.be')
      .executeTakeFirstOrThrow()
  ).user_id;
  // Two onboarding flows: one fresh, one past its terms and profile (at the email and phone steps).
  const fresh = (await post('/api/onboarding/invitation', { code: 'TESS-JOIN-0001' })).json().flow as string;
  const advanced = (
    await post('/api/onboarding/card', { cardNumber: '5065 0000 0000 1005', activationCode: '100505' })
  ).json().flow as string;
  expect(
    (
      await post('/api/onboarding/terms', {
        flow: advanced,
        terms: true,
        privacy: true,
        marketing: { email: false, sms: false, partners: false },
      })
    ).statusCode,
  ).toBe(204);
  expect(
    (await post('/api/onboarding/profile', { flow: advanced, firstname: 'Fuzz', lastname: 'Case' })).statusCode,
  ).toBe(204);
  const mfaLogin = (await post('/api/token', { username: 'mila.mfa@example.be', password: DEMO_PASSWORD })).json().mfa;
  const forgot = (await post('/api/user/forgot-password', { username: 'rita.reset@example.be' })).json()
    .payload as string;
  const devices = await server.ctx.db.selectFrom('devices').select('id').execute();
  const methods = await server.ctx.db.selectFrom('mfa_methods').select('id').execute();
  const usernames = [
    'emma.peeters@example.be',
    'EMMA.PEETERS@example.be ',
    '+32470123456',
    '0470 12 34 56',
    'nobody@example.com',
    '621 123 456',
  ];
  return {
    emmaId,
    known: {
      flow: [fresh, advanced],
      payload: [mfaLogin.payload, forgot],
      username: usernames,
      target: usernames,
      email: ['new.person@example.be', 'emma.peeters@example.be'],
      phone: ['0470 99 88 77', '+32470123456', '+352 621 999 999'],
      cardNumber: ['5065 0000 0000 1001', '5065000000000002', '5065 0000 0000 1007'],
      activationCode: ['100101', '200202'],
      nationalRegisterNumber: ['85073003328', '85.07.30-033.28'],
      code: ['TESS-JOIN-0002', 'tess join 0003'],
      client_id: ['2', '17', 'deals-partner'],
      id: [
        ...devices.map((d) => d.id),
        ...methods.map((m) => String(m.id)),
        '-1',
        '-5',
        '0',
        '9999999999',
        '-9999999999',
        '2147483648',
      ],
      mfaId: [...methods.map((m) => String(m.id)), '0', '9999999999', '2147483648'],
      firstname: ['Émile', 'Ø'],
      lastname: ["O'Brien", 'van der Berg'],
    },
  };
}

// The endpoints, read once from a server of their own before the runs are declared: the API's from
// its OpenAPI document, the provider's from its discovery document.
const OIDC_HOST = 'account.localhost:3000';
const OIDC_ISSUER = `http://${OIDC_HOST}/oidc`;
const { endpoints, discovery } = await (async () => {
  const probe = await startTestServer('sqlite', {}, { seed: false });
  await probe.app.ready();
  try {
    const res = await probe.app.inject({
      method: 'GET',
      url: '/oidc/.well-known/openid-configuration',
      headers: { host: OIDC_HOST },
    });
    return {
      endpoints: endpointsOf(probe.app.swagger() as Parameters<typeof endpointsOf>[0]),
      discovery: res.json() as Record<string, unknown>,
    };
  } finally {
    await probe.stop();
  }
})();
const kinds = await databaseKinds();

describe.each(kinds)('bad input on %s', (kind) => {
  let server: TestServer;
  let known: Record<string, string[]>;
  let emmaId: string;
  let before: Record<string, string>;
  beforeAll(async () => {
    // Limits high enough that the runs reach the code behind them.
    server = await startTestServer(kind, {
      LOGIN_MAX_FAILS_PER_IP: '100000',
      LOGIN_MAX_FAILS_PER_USER_IP: '1000',
      MFA_SENDS_PER_DESTINATION: '1000',
      MFA_SENDS_PER_ACCOUNT: '1000',
    });
    ({ known, emmaId } = await knownValues(server));
    before = await digest(server);
  });
  afterAll(async () => {
    printStats();
    await server?.stop();
  });

  // The cases that once answered 500 on PostgreSQL, kept as examples whatever the generator draws.
  it.each([
    ['a NUL in a sign-in name', 'POST', '/api/token', { username: 'emma\u0000@example.be', password: 'x' }],
    [
      'a control character in a password',
      'POST',
      '/api/token',
      { username: 'emma.peeters@example.be', password: 'Tessera\u0007' },
    ],
    [
      "a sign-in name past the store's key length",
      'POST',
      '/api/token',
      { username: `${'a'.repeat(300)}@example.be`, password: 'x' },
    ],
    [
      'a NUL in a forgotten-password target',
      'POST',
      '/api/user/forgot-password',
      { username: 'rita.reset\u0000@example.be' },
    ],
    ['a NUL in a card number', 'POST', '/api/user/forgot-username', { cardNumber: '5065\u00000000' }],
    ['a lone surrogate in an invitation code', 'POST', '/api/onboarding/invitation', { code: 'TESS-\ud800' }],
    [
      'a NUL in an onboarding name',
      'POST',
      '/api/onboarding/profile',
      { flow: 'advanced', firstname: 'A\u0000', lastname: 'B' },
    ],
    [
      'a NUL in an onboarding email',
      'POST',
      '/api/onboarding/email',
      { flow: 'advanced', email: 'new\u0000@example.be' },
    ],
    ['a NUL in an onboarding phone', 'POST', '/api/onboarding/phone', { flow: 'advanced', phone: '0470\u0000' }],
    ['a NUL in a method target', 'GET', '/api/mfa/-1/activate?target=new%00%40example.be', undefined],
    ['a method id past the integers', 'DELETE', '/api/mfa/1', { target: 2 ** 31 }],
    ['a path the router cannot decode', 'DELETE', '/api/devices/%zz%E0%A4%A/trust', undefined],
    ["a path parameter past the router's length", 'POST', `/api/mfa/switch-primary/${'1'.repeat(200)}`, undefined],
  ] as const)('answers %s with a 4xx', async (_name, method, url, body) => {
    const token = (
      await createSession(server.ctx.db, {
        userId: emmaId,
        deviceId: null,
        clientId: null,
        ip: '127.0.0.1',
        ttlDays: 1,
        mfaAt: nowIso(),
      })
    ).token;
    const payload = body && 'flow' in body ? { ...body, flow: known.flow![1] } : body;
    const res = await server.app.inject({
      method,
      url,
      headers: { ...DEVICE, authorization: `Bearer ${token}` },
      ...(payload ? { payload } : {}),
    });
    expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
    expect(res.statusCode, res.body).toBeLessThan(500);
    expect(Object.keys(ERRORS)).toContain(res.json().code);
    expect(await digest(server)).toEqual(before);
  });

  it('reaches every API endpoint', () => {
    expect(endpoints.length).toBeGreaterThan(20);
    expect(endpoints.map((e) => `${e.method} ${e.path}`)).toEqual(
      expect.arrayContaining([
        'POST /api/token',
        'POST /api/onboarding/profile',
        'POST /api/user/forgot-password',
        'GET /api/mfa/{id}/activate',
      ]),
    );
  });

  it.each(endpoints.map((e) => [`${e.method} ${e.path}`, e] as const))(
    '%s: never a 5xx, never a change to an account',
    async (_name, endpoint) => {
      const paramsSchema: Schema = {
        type: 'object',
        properties: endpoint.params,
        required: Object.keys(endpoint.params),
      };
      const querySchema: Schema = { type: 'object', properties: endpoint.query, required: endpoint.queryRequired };
      const input = fc.record({
        mode: fc.constantFrom<Mode>('anonymous', 'signed-in', 'stepped-up'),
        params: fc
          .oneof(
            shaped(paramsSchema, known, ''),
            fc.record(
              Object.fromEntries(
                Object.keys(endpoint.params).map((k) => [
                  k,
                  fc.oneof(nastyString, fc.constantFrom('-1', '0', '99999999999', '1e3', '0x10', ' 1')),
                ]),
              ),
            ),
          )
          .map((p) => p as Record<string, unknown>),
        query: spoiled(querySchema, shaped(querySchema, known, '')),
        body: endpoint.body
          ? spoiled(endpoint.body, shaped(endpoint.body, known, ''))
          : fc.constantFrom(undefined, {}, { extra: '\u0000' }),
        host: fc.constantFrom('account.localhost:3000', 'account.lu.localhost:3000', '127.0.0.1:3000'),
      });
      // A request the generator happened to make valid (a profile's names, say) may change the
      // account: that is its job. A refused one never may, which each mutating request checks.
      const mutating = endpoint.method !== 'GET';
      let accepted = false;
      await fc.assert(
        fc.asyncProperty(input, async ({ mode, params, query, body, host }) => {
          const prior = mutating ? await digest(server) : null;
          const path = endpoint.path.replace(/\{(\w+)\}/g, (_m, name: string) => encode(asText(params[name] ?? '')));
          const token =
            mode === 'anonymous'
              ? null
              : (
                  await createSession(server.ctx.db, {
                    userId: emmaId,
                    deviceId: null,
                    clientId: null,
                    ip: '127.0.0.1',
                    ttlDays: 1,
                    mfaAt: mode === 'stepped-up' ? nowIso() : null,
                  })
                ).token;
          const url = `${path}${queryString(query)}`;
          const res = await server.app.inject({
            method: endpoint.method as 'GET',
            url,
            headers: {
              ...DEVICE,
              host,
              ...(token ? { authorization: `Bearer ${token}` } : {}),
              ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
            },
            ...(body !== undefined ? { payload: toJson(body) } : {}),
          });
          count(`${endpoint.method} ${endpoint.path} ${res.statusCode} ${/"code":"(\w+)"/.exec(res.body)?.[1] ?? ''}`);
          if (res.statusCode >= 500) {
            throw new Error(
              `${endpoint.method} ${url} (${mode}) ${body !== undefined ? toJson(body).slice(0, 500) : ''} answered ${res.statusCode} ${res.body.slice(0, 300)}`,
            );
          }
          // A refusal says why with one of our codes, never the framework's.
          if (res.statusCode >= 400)
            expect(Object.keys(ERRORS), `${endpoint.method} ${url}: ${res.body.slice(0, 300)}`).toContain(
              res.json().code,
            );
          if (mutating && res.statusCode >= 400)
            expect(await digest(server), `${endpoint.method} ${url} was refused and changed an account`).toEqual(prior);
          if (mutating && res.statusCode < 300) accepted = true;
        }),
        { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}) },
      );
      // What the accepted requests changed is the starting point of the next endpoint's runs.
      if (accepted) before = await digest(server);
      else expect(await digest(server)).toEqual(before);
    },
    Math.max(60_000, RUNS * 500),
  );
});

// ---- The OpenID Provider -------------------------------------------------------------------------

type Params = Record<string, string | string[]>;
type OidcEndpoint = { name: string; method: 'GET' | 'POST'; path: string; params: readonly string[] };

const AUTHORIZATION_PARAMS = [
  'client_id',
  'response_type',
  'redirect_uri',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'prompt',
  'max_age',
  'acr_values',
  'login_hint',
  'id_token_hint',
  'claims',
  'ui_locales',
  'response_mode',
  'request',
  'request_uri',
  'resource',
];
const CLIENT_AUTH_PARAMS = ['client_id', 'client_secret', 'client_assertion', 'client_assertion_type'];
/** What each endpoint of the discovery document reads (RFC 6749, 7009, 7591, 7662, 8628, 9126,
 * OpenID Connect Core and RP-Initiated Logout); an endpoint it does not know gets all of them. */
const OIDC_PARAMS: Record<string, readonly string[]> = {
  authorization_endpoint: AUTHORIZATION_PARAMS,
  pushed_authorization_request_endpoint: [...AUTHORIZATION_PARAMS, ...CLIENT_AUTH_PARAMS],
  token_endpoint: [
    'grant_type',
    'code',
    'redirect_uri',
    'code_verifier',
    'refresh_token',
    'scope',
    'resource',
    'device_code',
    ...CLIENT_AUTH_PARAMS,
  ],
  userinfo_endpoint: ['access_token', 'claims'],
  revocation_endpoint: ['token', 'token_type_hint', ...CLIENT_AUTH_PARAMS],
  introspection_endpoint: ['token', 'token_type_hint', ...CLIENT_AUTH_PARAMS],
  end_session_endpoint: [
    'id_token_hint',
    'post_logout_redirect_uri',
    'state',
    'client_id',
    'logout_hint',
    'ui_locales',
  ],
  registration_endpoint: [
    'redirect_uris',
    'client_name',
    'grant_types',
    'response_types',
    'token_endpoint_auth_method',
    'scope',
    'jwks_uri',
  ],
  device_authorization_endpoint: ['client_id', 'scope'],
  jwks_uri: [],
};
const ALL_OIDC_PARAMS = [...new Set(Object.values(OIDC_PARAMS).flat())];

/** Every endpoint the discovery document names under the issuer, by GET and by POST (whether the
 * provider takes both or not), and the routes it has without naming them. */
function oidcEndpointsOf(doc: Record<string, unknown>): OidcEndpoint[] {
  const named = Object.entries(doc)
    .filter(
      ([key, value]) =>
        (key.endsWith('_endpoint') || key === 'jwks_uri') &&
        typeof value === 'string' &&
        value.startsWith(`${OIDC_ISSUER}/`),
    )
    .map(([key, value]) => ({
      name: key,
      path: `/oidc${(value as string).slice(OIDC_ISSUER.length)}`,
      params: OIDC_PARAMS[key] ?? ALL_OIDC_PARAMS,
    }));
  const unnamed = [
    { name: 'discovery', path: '/oidc/.well-known/openid-configuration', params: [] },
    { name: 'oauth_discovery', path: '/oidc/.well-known/oauth-authorization-server', params: [] },
    // The registration route oidc-provider has when registration is on (the attack tried it).
    { name: 'registration_endpoint', path: '/oidc/reg', params: OIDC_PARAMS.registration_endpoint! },
    { name: 'resume', path: '/oidc/auth/{uid}', params: [] },
    { name: 'end_session_confirm', path: '/oidc/session/end/confirm', params: ['xsrf', 'logout'] },
    { name: 'end_session_success', path: '/oidc/session/end/success', params: ['client_id', 'state'] },
    { name: 'interaction', path: '/oidc/interaction/{uid}', params: [] },
  ];
  const seen = new Set<string>();
  return [...named, ...unnamed]
    .flatMap((endpoint) => (['GET', 'POST'] as const).map((method) => ({ ...endpoint, method })))
    .filter(
      (endpoint) => !seen.has(`${endpoint.method} ${endpoint.path}`) && seen.add(`${endpoint.method} ${endpoint.path}`),
    );
}

const oidcEndpoints = oidcEndpointsOf(discovery);

const FUZZ_CLIENT = 'fuzz-confidential';
const FUZZ_SECRET = 'fuzz-client-secret-of-some-length-0123456789';
const VERIFIER = 'a-code-verifier-of-at-least-forty-three-characters-long';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');
const FIRST_PARTY_REDIRECT = DEMO_CLIENTS.find((c) => c.client_id === '2')!.redirect_uris.find((u) =>
  u.startsWith('http://'),
)!;
const PARTNER_REDIRECT = DEMO_CLIENTS.find((c) => c.client_id === 'deals-partner')!.redirect_uris[0]!;

/** Content types a client may send: right, wrong, and none Fastify or the provider can read. */
const CONTENT_TYPES = [
  '',
  ' ',
  '   ',
  '\t',
  'application/json, text/plain',
  'text/plain',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/form-data; boundary=XyZ',
  'application/x-www-form-urlencoded; charset=utf-9',
  'application/x-www-form-urlencoded; charset=latin1',
  'application/x-www-form-urlencoded;;;',
  'application/x-www-form-urlencoded, application/json',
  'APPLICATION/X-WWW-FORM-URLENCODED',
  'application/x-www-form-urlencoded; charset="utf-8"',
  '*/*',
  'application/*',
  'x',
  ';',
  '/',
  'application/json; charset=utf-8',
  'application/jwt',
  'a'.repeat(5000),
  `application/x-www-form-urlencoded; ${'p=v; '.repeat(800)}`,
];
const headerText = fc.stringMatching(/^[\x20-\x7e]{0,60}$/);

type Body = { kind: 'none' | 'form' | 'json' | 'raw' | 'multipart'; raw: string };

function formOf(params: Params): string {
  return Object.entries(params)
    .flatMap(([key, v]) => (Array.isArray(v) ? v : [v]).map((item) => `${encode(key)}=${encode(item)}`))
    .join('&');
}

function multipartOf(params: Params): string {
  return `${Object.entries(params)
    .map(([key, v]) => `--XyZ\r\nContent-Disposition: form-data; name="${key}"\r\n\r\n${String(v)}\r\n`)
    .join('')}--XyZ--\r\n`;
}

/** Values the provider knows (its clients, a real code and tokens, an interaction), so that
 * generated requests also get past its first look-ups. */
async function oidcKnownValues(server: TestServer) {
  const emmaId = (
    await server.ctx.db
      .selectFrom('user_emails')
      .select('user_id')
      .where('value', '=', 'emma.peeters@example.be')
      .executeTakeFirstOrThrow()
  ).user_id;
  await registerClient(server.ctx.db, {
    client_id: FUZZ_CLIENT,
    name: 'Fuzz',
    redirect_uris: ['https://fuzz.example/cb'],
    secret: FUZZ_SECRET,
    scopes: ['balance'],
  });
  const provider = server.oidc.forIssuer(OIDC_ISSUER);
  const client = (await provider.Client.find('2'))!;
  const grant = new provider.Grant({ accountId: emmaId, clientId: '2' });
  grant.addOIDCScope('openid profile email offline_access');
  const grantId = await grant.save();
  const token = { accountId: emmaId, client, grantId, gty: 'authorization_code' };
  const accessToken = await new provider.AccessToken({ ...token, scope: 'openid profile email' }).save();
  const refreshToken = await new provider.RefreshToken({
    ...token,
    scope: 'openid profile email offline_access',
  }).save();
  const code = await new provider.AuthorizationCode({
    ...token,
    redirectUri: FIRST_PARTY_REDIRECT,
    scope: 'openid profile',
    codeChallenge: CHALLENGE,
    codeChallengeMethod: 'S256',
  }).save();
  // An authorization request under way: its interaction, and the browser's cookies for it.
  const started = await server.app.inject({
    method: 'GET',
    headers: { host: OIDC_HOST },
    url: `/oidc/auth?${new URLSearchParams({ client_id: '2', response_type: 'code', scope: 'openid', redirect_uri: FIRST_PARTY_REDIRECT, code_challenge: CHALLENGE, code_challenge_method: 'S256' })}`,
  });
  expect(started.statusCode, started.body).toBe(303);
  const uid = /\/interaction\/([\w-]+)/.exec(String(started.headers.location))![1]!;
  const setCookies = started.headers['set-cookie'];
  const interactionCookies = (Array.isArray(setCookies) ? setCookies : [setCookies ?? ''])
    .map((c) => c.split(';')[0]!)
    .join('; ');
  const sessionToken = (
    await createSession(server.ctx.db, {
      userId: emmaId,
      deviceId: null,
      clientId: null,
      ip: '127.0.0.1',
      ttlDays: 1,
      mfaAt: null,
    })
  ).token;
  const redirects = [
    FIRST_PARTY_REDIRECT,
    PARTNER_REDIRECT,
    'https://fuzz.example/cb',
    'https://evil.example/cb',
    'javascript:alert(1)',
  ];
  const known: Record<string, string[]> = {
    client_id: ['2', '17', 'deals-partner', FUZZ_CLIENT, 'unknown-client'],
    client_secret: [FUZZ_SECRET, 'wrong-secret'],
    redirect_uri: redirects,
    post_logout_redirect_uri: redirects,
    redirect_uris: redirects,
    response_type: ['code', 'token', 'id_token', 'code id_token', 'none'],
    response_mode: ['query', 'fragment', 'form_post', 'jwt', 'web_message'],
    scope: ['openid', 'openid profile email phone offline_access', 'openid balance user', 'profile', 'openid unknown'],
    code_challenge: [CHALLENGE],
    code_challenge_method: ['S256', 'plain'],
    code_verifier: [VERIFIER],
    prompt: ['none', 'login', 'consent', 'select_account', 'create', 'login consent'],
    max_age: ['0', '-1', '3600', '1e3'],
    acr_values: ['mfa', 'pwd', 'mfa pwd'],
    grant_type: [
      'authorization_code',
      'refresh_token',
      'client_credentials',
      'password',
      'urn:ietf:params:oauth:grant-type:device_code',
    ],
    code: [code],
    refresh_token: [refreshToken],
    token: [accessToken, refreshToken, code],
    access_token: [accessToken],
    token_type_hint: ['access_token', 'refresh_token', 'authorization_code'],
    request_uri: ['urn:ietf:params:oauth:request_uri:unknown', 'https://evil.example/request'],
    request: ['eyJhbGciOiJub25lIn0.eyJjbGllbnRfaWQiOiIyIn0.', 'not.a.jwt'],
    id_token_hint: ['eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', 'eyJ.eyJ.sig'],
    claims: ['{"userinfo":{"email":null}}', '{', '[]', '{"id_token":{"acr":{"essential":true,"values":["mfa"]}}}'],
    client_assertion_type: ['urn:ietf:params:oauth:client-assertion-type:jwt-bearer'],
    ui_locales: ['fr', 'nl-BE', 'xx'],
    logout: ['yes', 'true'],
    uid: [uid],
  };
  /** Requests each endpoint would take as they are. */
  const valid: Record<string, Params[]> = {
    authorization_endpoint: [
      {
        client_id: '2',
        response_type: 'code',
        scope: 'openid',
        redirect_uri: FIRST_PARTY_REDIRECT,
        code_challenge: CHALLENGE,
        code_challenge_method: 'S256',
        state: 'st',
        nonce: 'n',
      },
      {
        client_id: 'deals-partner',
        response_type: 'code',
        scope: 'openid balance',
        redirect_uri: PARTNER_REDIRECT,
        code_challenge: CHALLENGE,
        code_challenge_method: 'S256',
      },
    ],
    token_endpoint: [
      {
        client_id: '2',
        grant_type: 'authorization_code',
        code,
        redirect_uri: FIRST_PARTY_REDIRECT,
        code_verifier: VERIFIER,
      },
      { client_id: '2', grant_type: 'refresh_token', refresh_token: refreshToken },
      { client_id: FUZZ_CLIENT, client_secret: FUZZ_SECRET, grant_type: 'refresh_token', refresh_token: 'unknown' },
    ],
    userinfo_endpoint: [{}, { access_token: accessToken }],
    revocation_endpoint: [
      { client_id: '2', token: accessToken },
      { client_id: FUZZ_CLIENT, client_secret: FUZZ_SECRET, token: refreshToken },
    ],
    introspection_endpoint: [
      { client_id: FUZZ_CLIENT, client_secret: FUZZ_SECRET, token: accessToken },
      { client_id: '2', token: refreshToken },
    ],
    end_session_endpoint: [{ client_id: '2', post_logout_redirect_uri: FIRST_PARTY_REDIRECT, state: 'st' }],
    end_session_confirm: [{ xsrf: 'x', logout: 'yes' }],
  };
  valid.pushed_authorization_request_endpoint = valid.authorization_endpoint!;
  return { known, valid, accessToken, sessionToken, interactionCookies };
}

type OidcMode = 'anonymous' | 'signed-in' | 'interaction' | 'junk-cookies';

function decodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

describe.each(kinds)('bad input to the OpenID Provider on %s', (kind) => {
  let server: TestServer;
  let values: Awaited<ReturnType<typeof oidcKnownValues>>;
  let before: Record<string, string>;
  beforeAll(async () => {
    server = await startTestServer(kind);
    values = await oidcKnownValues(server);
    before = await digest(server);
  });
  afterAll(async () => {
    printStats();
    await server?.stop();
  });

  const storedModels = async () =>
    new Set(
      (await server.ctx.db.selectFrom('oidc_models').select(['model', 'id']).execute()).map(
        (r) => `${r.model} ${r.id}`,
      ),
    );

  it('reaches every endpoint of the discovery document', () => {
    const names = new Set(oidcEndpoints.map((e) => e.name));
    for (const key of [
      ...ISSUER_ENDPOINTS,
      'pushed_authorization_request_endpoint',
      'discovery',
      'registration_endpoint',
    ])
      expect(names).toContain(key);
    // Whatever the provider turns on later (registration, device flow…) is in the runs by itself.
    for (const [key, value] of Object.entries(discovery)) {
      if (key.endsWith('_endpoint') && typeof value === 'string') expect(names, key).toContain(key);
    }
    expect(oidcEndpoints.map((e) => `${e.method} ${e.path}`)).toEqual(
      expect.arrayContaining([
        'GET /oidc/auth',
        'POST /oidc/auth',
        'POST /oidc/token',
        'GET /oidc/session/end',
        'POST /oidc/session/end',
        'POST /oidc/request',
        'POST /oidc/reg',
      ]),
    );
  });

  it.each(oidcEndpoints.map((e) => [`${e.method} ${e.path}`, e] as const))(
    '%s: never a 5xx, never a change to an account, nothing stored on a refusal',
    async (_name, endpoint) => {
      const { known, valid } = values;
      const value = (name: string): fc.Arbitrary<string> =>
        fc.oneof(
          ...((known[name] ?? []).length > 0 ? [{ weight: 4, arbitrary: fc.constantFrom(...known[name]!) }] : []),
          { weight: 2, arbitrary: nastyString },
          { weight: 1, arbitrary: wrongType.map(asText) },
          { weight: 1, arbitrary: fc.string({ maxLength: 24 }) },
        );
      const names = endpoint.params.length > 0 ? endpoint.params : ['client_id', 'state'];
      const name = fc.constantFrom(...names);
      const base = fc.constantFrom<Params>(...(valid[endpoint.name] ?? [{}]));
      // A request the endpoint would take, then one thing wrong with it; or anything at all.
      const params: fc.Arbitrary<Params> = fc.oneof(
        base,
        fc.tuple(base, name, value('')).map(([p, n, v]) => ({ ...p, [n]: v })),
        fc.tuple(base, name, nastyString).map(([p, n, v]) => ({ ...p, [n]: v })),
        fc.tuple(base, name).map(([p, n]) => Object.fromEntries(Object.entries(p).filter(([k]) => k !== n))),
        fc.tuple(base, name, fc.string({ maxLength: 8 })).map(([p, n, v]) => ({ ...p, [n]: [String(p[n] ?? v), v] })),
        fc
          .tuple(base, fc.string({ maxLength: 10 }), fc.oneof(nastyString, value('')))
          .map(([p, n, v]) => ({ ...p, [n || 'extra']: v })),
        fc.record(Object.fromEntries(names.map((n) => [n, value(n)])), { requiredKeys: [] }) as fc.Arbitrary<Params>,
      );
      const uid = fc.oneof(
        fc.constantFrom(...known.uid!),
        nastyString.map(encode),
        fc.constantFrom('%zz%E0%A4%A', 'x'.repeat(300), '..%2F..', ''),
      );
      const body: fc.Arbitrary<Body['kind']> = fc.constantFrom(
        'none',
        'form',
        'form',
        'form',
        'json',
        'raw',
        'multipart',
      );
      const natural: Record<Body['kind'], string | undefined> = {
        none: undefined,
        form: 'application/x-www-form-urlencoded',
        json: 'application/json',
        raw: 'text/plain',
        multipart: 'multipart/form-data; boundary=XyZ',
      };
      const input = fc.record({
        method: fc.oneof(
          { weight: 12, arbitrary: fc.constant(endpoint.method) },
          { weight: 1, arbitrary: fc.constantFrom('HEAD', 'OPTIONS', 'PUT', 'DELETE', 'PATCH') },
        ),
        mode: fc.constantFrom<OidcMode>('anonymous', 'anonymous', 'signed-in', 'interaction', 'junk-cookies'),
        params,
        uid,
        body,
        raw: nastyString,
        inQuery: fc.boolean(),
        contentType: fc.oneof(
          { weight: 5, arbitrary: fc.constant<string | null>(null) },
          { weight: 2, arbitrary: fc.constantFrom<string | undefined>(...CONTENT_TYPES, undefined) },
          { weight: 1, arbitrary: headerText },
        ),
        authorization: fc.oneof(
          { weight: 6, arbitrary: fc.constant<string | undefined>(undefined) },
          { weight: 2, arbitrary: fc.constant(`Bearer ${values.accessToken}`) },
          { weight: 1, arbitrary: headerText.map((t) => `Bearer ${t}`) },
          {
            weight: 2,
            arbitrary: fc
              .tuple(value('client_id'), value('client_secret'))
              .map(([id, secret]) => `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString('base64')}`),
          },
          {
            weight: 1,
            arbitrary: fc.constantFrom('Basic !!!', 'Basic', 'DPoP x', `Basic ${randomBytes(30).toString('base64')}`),
          },
        ),
        dpop: fc.option(headerText, { nil: undefined }),
        origin: fc.constantFrom(undefined, 'http://client.localhost:3000', 'https://evil.example', 'null'),
        accept: fc.constantFrom(undefined, 'text/html', 'application/json', '*/*'),
        host: fc.constantFrom(OIDC_HOST, 'account.lu.localhost:3000'),
      });
      await fc.assert(
        fc.asyncProperty(input, async (draw) => {
          const prior = await storedModels();
          const path = endpoint.path.replace('{uid}', draw.uid);
          const sendsBody = draw.method !== 'GET' && draw.method !== 'HEAD' && draw.body !== 'none';
          const payload = !sendsBody
            ? undefined
            : draw.body === 'form'
              ? formOf(draw.params)
              : draw.body === 'json'
                ? toJson(draw.params)
                : draw.body === 'multipart'
                  ? multipartOf(draw.params)
                  : draw.raw;
          const query = !sendsBody || draw.inQuery ? formOf(draw.params) : '';
          const url = `${path}${query ? `?${query}` : ''}`;
          // null: the type that goes with the body; undefined: no Content-Type header at all.
          const contentType =
            draw.contentType === null ? (sendsBody ? natural[draw.body] : undefined) : draw.contentType;
          const cookie =
            draw.mode === 'signed-in'
              ? `${server.ctx.cookieName}=${values.sessionToken}`
              : draw.mode === 'interaction'
                ? `${values.interactionCookies}; ${server.ctx.cookieName}=${values.sessionToken}`
                : draw.mode === 'junk-cookies'
                  ? '_session=junk; _session.sig=junk; _interaction=junk; _interaction_resume=x'
                  : undefined;
          const headers: Record<string, string> = { host: draw.host };
          for (const [header, v] of Object.entries({
            'content-type': contentType,
            authorization: draw.authorization,
            dpop: draw.dpop,
            origin: draw.origin,
            accept: draw.accept,
            cookie,
          })) {
            if (v !== undefined) headers[header] = v;
          }
          const res = await server.app.inject({
            method: draw.method as 'GET',
            url,
            headers,
            ...(payload !== undefined ? { payload } : {}),
          });
          const what = () =>
            `${draw.method} ${url.slice(0, 300)} ${JSON.stringify(headers).slice(0, 300)} ${(payload ?? '').slice(0, 300)}`;
          count(`${endpoint.method} ${endpoint.path} ${res.statusCode} ${/"error":"(\w+)"/.exec(res.body)?.[1] ?? ''}`);
          if (res.statusCode >= 500) throw new Error(`${what()} answered ${res.statusCode} ${res.body.slice(0, 300)}`);
          // A refusal in JSON is an OAuth error (RFC 6749 §5.2), never a framework's body. A path the
          // router cannot decode reaches no endpoint: the app answers it (frameworkErrors, app.ts).
          if (
            res.statusCode >= 400 &&
            String(res.headers['content-type']).startsWith('application/json') &&
            res.body &&
            decodable(path)
          ) {
            expect(res.json(), `${what()}: ${res.body.slice(0, 300)}`).toEqual(
              expect.objectContaining({ error: expect.stringMatching(/^[a-z_]+$/) }),
            );
          }
          expect(await digest(server), `${what()} changed an account`).toEqual(before);
          // A refused request stores nothing (it may end what it was refused over: a code used twice
          // revokes its grant).
          if (res.statusCode >= 400) {
            const added = [...(await storedModels())].filter((row) => !prior.has(row));
            expect(added, `${what()} was refused (${res.statusCode}) and stored ${added.join(', ')}`).toEqual([]);
          }
        }),
        { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}) },
      );
    },
    Math.max(60_000, RUNS * 500),
  );
});
