// Bad input, generated from the routes' own JSON Schemas (the contract's valibot schemas as Fastify
// got them), against every API endpoint, anonymous and signed in: no answer is a 5xx, and the
// account tables stay as they were. `npm run fuzz` runs many more cases (FUZZ_RUNS per endpoint).
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../contract/errors.ts';
import { PLAIN_TEXT } from '../../contract/schemas.ts';
import { nowIso } from '../db/index.ts';
import { DEMO_PASSWORD } from '../seed/demo.ts';
import { createSession } from '../sessions/store.ts';
import { DEVICE, databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const STATS: Record<string, number> | null = process.env.FUZZ_STATS ? {} : null;
const ACCOUNT_TABLES = ['users', 'user_emails', 'user_phones', 'passwords', 'mfa_methods', 'cards', 'invitations'] as const;

type Schema = {
  type?: string; enum?: unknown[]; pattern?: string; format?: string; minLength?: number; maxLength?: number;
  minimum?: number; maximum?: number; properties?: Record<string, Schema>; required?: string[];
};
type Endpoint = { method: string; path: string; params: Record<string, Schema>; query: Record<string, Schema>; queryRequired: string[]; body: Schema | null };
type Mode = 'anonymous' | 'signed-in' | 'stepped-up';

/** Every API route the server registered, from its OpenAPI document (hidden routes take no input). */
function endpointsOf(doc: { paths: Record<string, Record<string, {
  parameters?: Array<{ in: string; name: string; required?: boolean; schema: Schema }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
}>> }): Endpoint[] {
  return Object.entries(doc.paths).flatMap(([path, operations]) => Object.entries(operations).map(([method, op]) => {
    const parameters = op.parameters ?? [];
    const byPlace = (place: string) => Object.fromEntries(parameters.filter((p) => p.in === place).map((p) => [p.name, p.schema]));
    return {
      method: method.toUpperCase(),
      path: `/api${path}`,
      params: byPlace('path'),
      query: byPlace('query'),
      queryRequired: parameters.filter((p) => p.in === 'query' && p.required).map((p) => p.name),
      body: op.requestBody?.content['application/json']?.schema ?? null,
    };
  }));
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
  '\u0000', 'a\u0000b', '\u0001', '\u0008', '\t', '\n', '\r\n', '\u001b[31m', '\u007f', '\u0085', '\u009f',
  '\u200b', '\u202e', '\ufeff', '\u2028', '\ud800', '\udfff', 'a\udc00b', 'e\u0301', '\u{1f600}', '\uffff', '\u{10ffff}',
  'İ', 'ß', 'ﬀ', '%00', '\\u0000', "'; drop table users; --", '../../etc/passwd', '<script>', '', ' ', '   ',
];

const control = fc.oneof(fc.integer({ min: 0, max: 0x1f }), fc.integer({ min: 0x7f, max: 0x9f })).map((c) => String.fromCharCode(c));

/** Strings that have no business in a field: control characters, lone surrogates, odd Unicode, long runs. */
const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...ODD),
  fc.tuple(fc.string({ maxLength: 12 }), fc.oneof(control, fc.constantFrom(...ODD)), fc.string({ maxLength: 12 })).map((parts) => parts.join('')),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.tuple(fc.constantFrom('a', '\u0000', 'é', '\u{1f600}', '5', '@', ' '), fc.integer({ min: 100, max: 6000 })).map(([c, n]) => c.repeat(n)),
  fc.tuple(fc.constantFrom('a', '9'), fc.integer({ min: 200, max: 400 })).map(([c, n]) => `${c.repeat(n)}@example.com`),
);

const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant([]), fc.constant({}),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  fc.constantFrom(...['1e400', '-1e400', '99999999999999999999999', '9007199254740993', '1e308', '-0', '0.5', '2147483648'].map((n) => new RawNumber(n))),
);

/** A value of the field's own shape, now and then one the server knows (a real flow, ticket or id). */
function shaped(schema: Schema, known: Record<string, string[]>, name: string): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'boolean': return fc.boolean();
    case 'integer':
    case 'number': return fc.oneof(
      fc.integer({ min: schema.minimum ?? -1000, max: Math.min(schema.maximum ?? 1000, 2 ** 31 - 1) }),
      fc.constantFrom(2 ** 31, 2 ** 53 - 1, 1e21, -(2 ** 31) - 1),
    );
    case 'object': {
      const properties = schema.properties ?? {};
      const model = Object.fromEntries(Object.entries(properties).map(([key, value]) => [key, shaped(value, known, key)]));
      return fc.record(model, { requiredKeys: schema.required ?? [] });
    }
    default: {
      const own = known[name] ?? [];
      const max = schema.maxLength ?? 64;
      // The plain-text pattern of every text field is a bound, not a shape: draw text of any kind.
      const plain = schema.pattern && schema.pattern !== PLAIN_TEXT.source
        ? fc.stringMatching(new RegExp(schema.pattern, 'u')).filter((s) => s.length <= max)
        : schema.format === 'uuid' ? fc.uuid()
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
  const options: Array<fc.Arbitrary<unknown>> = [
    valid,
    fc.oneof(wrongType, nastyString),
  ];
  if (fields.length > 0) {
    const field = fc.constantFrom(...fields.map(([name]) => name));
    const replace = (bad: fc.Arbitrary<unknown>) => fc.tuple(valid, field, bad)
      .map(([value, name, b]) => ({ ...(value as object), [name]: b }));
    options.push(
      replace(nastyString), replace(nastyString), replace(wrongType),
      // A string just over its field's bound.
      fc.tuple(valid, field, fc.integer({ min: 1, max: 300 }))
        .map(([value, name, extra]) => ({ ...(value as object), [name]: 'x'.repeat((schema!.properties![name]!.maxLength ?? 64) + extra) })),
      // A required field missing, or a field nobody asked for.
      fc.tuple(valid, field).map(([value, name]) => {
        const copy = { ...(value as Record<string, unknown>) };
        delete copy[name];
        return copy;
      }),
      fc.tuple(valid, fc.string({ maxLength: 10 }), fc.oneof(nastyString, wrongType)).map(([value, name, b]) => ({ ...(value as object), [name || 'extra']: b })),
      // The same body inside an array, or under a prototype-polluting key.
      valid.map((value) => [value]),
      valid.map((value) => JSON.parse(`{"__proto__": {"admin": true}, "constructor": {"prototype": {}}, "v": ${JSON.stringify(value)}}`)),
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
  return value instanceof RawNumber ? value.text : toJson(value) ?? '';
}

function queryString(value: unknown): string {
  if (value === undefined) return '';
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof RawNumber) return `?${encode(asText(value))}`;
  const parts = Object.entries(value).flatMap(([key, v]) => (Array.isArray(v) ? v : [v]).map((item) => `${encode(key)}=${encode(asText(item))}`));
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
  const emmaId = (await server.ctx.db.selectFrom('user_emails').select('user_id').where('value', '=', 'emma.peeters@example.be').executeTakeFirstOrThrow()).user_id;
  // Two onboarding flows: one fresh, one past its terms and profile (at the email and phone steps).
  const fresh = (await post('/api/onboarding/invitation', { code: 'TESS-JOIN-0001' })).json().flow as string;
  const advanced = (await post('/api/onboarding/card', { cardNumber: '5065 0000 0000 1005', activationCode: '100505' })).json().flow as string;
  expect((await post('/api/onboarding/terms', { flow: advanced, terms: true, privacy: true, marketing: { email: false, sms: false, partners: false } })).statusCode).toBe(204);
  expect((await post('/api/onboarding/profile', { flow: advanced, firstname: 'Fuzz', lastname: 'Case', language: 'en' })).statusCode).toBe(204);
  const mfaLogin = (await post('/api/token', { username: 'mila.mfa@example.be', password: DEMO_PASSWORD })).json().mfa;
  const forgot = (await post('/api/user/forgot-password', { username: 'rita.reset@example.be' })).json().payload as string;
  const devices = await server.ctx.db.selectFrom('devices').select('id').execute();
  const methods = await server.ctx.db.selectFrom('mfa_methods').select('id').execute();
  const usernames = ['emma.peeters@example.be', 'EMMA.PEETERS@example.be ', '+32470123456', '0470 12 34 56', 'nobody@example.com', '621 123 456'];
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
      id: [...devices.map((d) => d.id), ...methods.map((m) => String(m.id)), '-1', '-5', '0', '9999999999', '-9999999999', '2147483648'],
      mfaId: [...methods.map((m) => String(m.id)), '0', '9999999999', '2147483648'],
      firstname: ['Émile', 'Ø'], lastname: ["O'Brien", 'van der Berg'],
    },
  };
}

// The endpoints, read once from a server of their own before the runs are declared.
const endpoints = await (async () => {
  const probe = await startTestServer('sqlite', {}, { seed: false });
  await probe.app.ready();
  try {
    return endpointsOf(probe.app.swagger() as Parameters<typeof endpointsOf>[0]);
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
      LOGIN_MAX_FAILS_PER_IP: '100000', LOGIN_MAX_FAILS_PER_USER_IP: '1000', MFA_SENDS_PER_DESTINATION: '1000', MFA_SENDS_PER_ACCOUNT: '1000',
    });
    ({ known, emmaId } = await knownValues(server));
    before = await digest(server);
  });
  afterAll(async () => {
    if (STATS) console.info(Object.entries(STATS).sort().map(([k, n]) => `${k}: ${n}`).join('\n'));
    await server?.stop();
  });

  // The cases that once answered 500 on PostgreSQL, kept as examples whatever the generator draws.
  it.each([
    ['a NUL in a sign-in name', 'POST', '/api/token', { username: 'emma\u0000@example.be', password: 'x' }],
    ['a control character in a password', 'POST', '/api/token', { username: 'emma.peeters@example.be', password: 'Tessera\u0007' }],
    ['a sign-in name past the store\'s key length', 'POST', '/api/token', { username: `${'a'.repeat(300)}@example.be`, password: 'x' }],
    ['a NUL in a forgotten-password target', 'POST', '/api/user/forgot-password', { username: 'rita.reset\u0000@example.be' }],
    ['a NUL in a card number', 'POST', '/api/user/forgot-username', { cardNumber: '5065\u00000000' }],
    ['a lone surrogate in an invitation code', 'POST', '/api/onboarding/invitation', { code: 'TESS-\ud800' }],
    ['a NUL in an onboarding name', 'POST', '/api/onboarding/profile', { flow: 'advanced', firstname: 'A\u0000', lastname: 'B', language: 'en' }],
    ['a NUL in an onboarding email', 'POST', '/api/onboarding/email', { flow: 'advanced', email: 'new\u0000@example.be' }],
    ['a NUL in an onboarding phone', 'POST', '/api/onboarding/phone', { flow: 'advanced', phone: '0470\u0000' }],
    ['a NUL in a method target', 'GET', '/api/mfa/-1/activate?target=new%00%40example.be', undefined],
    ['a method id past the integers', 'DELETE', '/api/mfa/1', { target: 2 ** 31 }],
    ['a path the router cannot decode', 'DELETE', '/api/devices/%zz%E0%A4%A/trust', undefined],
    ['a path parameter past the router\'s length', 'POST', `/api/mfa/switch-primary/${'1'.repeat(200)}`, undefined],
  ] as const)('answers %s with a 4xx', async (_name, method, url, body) => {
    const token = (await createSession(server.ctx.db, { userId: emmaId, deviceId: null, clientId: null, ip: '127.0.0.1', ttlDays: 1, mfaAt: nowIso() })).token;
    const payload = body && 'flow' in body ? { ...body, flow: known.flow![1] } : body;
    const res = await server.app.inject({ method, url, headers: { ...DEVICE, authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
    expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
    expect(res.statusCode, res.body).toBeLessThan(500);
    expect(Object.keys(ERROR_STATUS)).toContain(res.json().code);
    expect(await digest(server)).toEqual(before);
  });

  it('reaches every API endpoint', () => {
    expect(endpoints.length).toBeGreaterThan(20);
    expect(endpoints.map((e) => `${e.method} ${e.path}`)).toEqual(expect.arrayContaining([
      'POST /api/token', 'POST /api/onboarding/profile', 'POST /api/user/forgot-password', 'GET /api/mfa/{id}/activate',
    ]));
  });

  it.each(endpoints.map((e) => [`${e.method} ${e.path}`, e] as const))('%s: never a 5xx, never a change to an account', async (_name, endpoint) => {
    const paramsSchema: Schema = { type: 'object', properties: endpoint.params, required: Object.keys(endpoint.params) };
    const querySchema: Schema = { type: 'object', properties: endpoint.query, required: endpoint.queryRequired };
    const input = fc.record({
      mode: fc.constantFrom<Mode>('anonymous', 'signed-in', 'stepped-up'),
      params: fc.oneof(shaped(paramsSchema, known, ''), fc.record(Object.fromEntries(Object.keys(endpoint.params).map((k) => [k, fc.oneof(nastyString, fc.constantFrom('-1', '0', '99999999999', '1e3', '0x10', ' 1'))]))))
        .map((p) => p as Record<string, unknown>),
      query: spoiled(querySchema, shaped(querySchema, known, '')),
      body: endpoint.body ? spoiled(endpoint.body, shaped(endpoint.body, known, '')) : fc.constantFrom(undefined, {}, { extra: '\u0000' }),
      host: fc.constantFrom('account.localhost:3000', 'account.lu.localhost:3000', '127.0.0.1:3000'),
    });
    // A request the generator happened to make valid (a profile's names, say) may change the
    // account: that is its job. A refused one never may, which each mutating request checks.
    const mutating = endpoint.method !== 'GET';
    let accepted = false;
    await fc.assert(fc.asyncProperty(input, async ({ mode, params, query, body, host }) => {
      const prior = mutating ? await digest(server) : null;
      const path = endpoint.path.replace(/\{(\w+)\}/g, (_m, name: string) => encode(asText(params[name] ?? '')));
      const token = mode === 'anonymous' ? null : (await createSession(server.ctx.db, {
        userId: emmaId, deviceId: null, clientId: null, ip: '127.0.0.1', ttlDays: 1, mfaAt: mode === 'stepped-up' ? nowIso() : null,
      })).token;
      const url = `${path}${queryString(query)}`;
      const res = await server.app.inject({
        method: endpoint.method as 'GET', url,
        headers: { ...DEVICE, host, ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { payload: toJson(body) } : {}),
      });
      if (STATS) {
        const key = `${endpoint.method} ${endpoint.path} ${res.statusCode} ${/"code":"(\w+)"/.exec(res.body)?.[1] ?? ''}`;
        STATS[key] = (STATS[key] ?? 0) + 1;
      }
      if (res.statusCode >= 500) {
        throw new Error(`${endpoint.method} ${url} (${mode}) ${body !== undefined ? toJson(body).slice(0, 500) : ''} answered ${res.statusCode} ${res.body.slice(0, 300)}`);
      }
      // A refusal says why with one of our codes, never the framework's.
      if (res.statusCode >= 400) expect(Object.keys(ERROR_STATUS), `${endpoint.method} ${url}: ${res.body.slice(0, 300)}`).toContain(res.json().code);
      if (mutating && res.statusCode >= 400) expect(await digest(server), `${endpoint.method} ${url} was refused and changed an account`).toEqual(prior);
      if (mutating && res.statusCode < 300) accepted = true;
    }), { numRuns: RUNS, ...(SEED !== undefined ? { seed: SEED } : {}) });
    // What the accepted requests changed is the starting point of the next endpoint's runs.
    if (accepted) before = await digest(server);
    else expect(await digest(server)).toEqual(before);
  }, Math.max(60_000, RUNS * 500));
});
