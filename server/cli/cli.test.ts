import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activationCodeMatches } from '../methods/activation-code.ts';
import { invitationCodeHash } from '../methods/invitation-code.ts';
import { clientSecretMatches } from '../oidc/clients.ts';
import { logoVersionOf } from '../oidc/logos.ts';
import { createPostgresDatabase, databaseKinds } from '../testing/harness.ts';
import { EXIT_ERROR, EXIT_OK, EXIT_REFUSED_ROWS, runCli, USAGE } from './index.ts';

const root = join(import.meta.dirname, '..', '..');
const SECRET_KEY = 'cli-test-secret-key-of-at-least-32-characters';
const LOGO = readFileSync(join(root, 'server', 'seed', 'deals-partner-logo.png'));
const CODE = /Code: ([0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4})\n/;

// Each test runs the command several times as a process: under a busy machine that takes a while.
describe('the command, run as a process', { timeout: 120_000 }, () => {
  let dir: string;
  let env: Record<string, string | undefined>;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tessera-cli-'));
    env = {
      ...process.env,
      NODE_ENV: 'test',
      SQLITE_PATH: join(dir, 'tessera.sqlite'),
      SECRET_KEY,
      DATABASE_URL: '',
      INIT_CWD: dir,
    };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ['scripts/cli.ts', ...args], { cwd: root, env, encoding: 'utf8', timeout: 30_000 });
  const sqlite = <T>(query: string, ...params: string[]): T[] => {
    const database = new DatabaseSync(env.SQLITE_PATH!);
    try {
      return database.prepare(query).all(...params) as T[];
    } finally {
      database.close();
    }
  };

  it('imports the good rows of a file, reports the bad one, and exits with 2', () => {
    const file = join(dir, 'cards.csv');
    writeFileSync(
      file,
      'number,activation_code,email\r\n5065 7000 0000 0001,AB12-CD34,Jane@Example.be\r\n5065,ABCD,\r\n5065700000000003,EFGH,\r\n',
    );
    const run = cli('cards', 'import', file);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(
      'Imported 2 cards; refused 1 row:\n  line 3: the card number must be 16 digits starting with 5065\n',
    );
    expect(run.status).toBe(EXIT_REFUSED_ROWS);
    const stored = sqlite<{ number: string; activation_code_hash: string; holder_email: string | null }>(
      'select * from cards order by number',
    );
    expect(stored.map((c) => [c.number, c.holder_email])).toEqual([
      ['5065700000000001', 'jane@example.be'],
      ['5065700000000003', null],
    ]);
    // Keyed with the SECRET_KEY of the environment, as the server will check it.
    expect(activationCodeMatches(SECRET_KEY, stored[0]!, 'AB12CD34')).toBe(true);

    // A file name is taken from where the operator ran npm (INIT_CWD); every row is now known.
    const again = cli('cards', 'import', 'cards.csv');
    expect(again.status).toBe(EXIT_REFUSED_ROWS);
    expect(again.stdout).toContain(
      'Imported 0 cards; refused 3 rows:\n  line 2: the card 5065700000000001 is already imported\n',
    );
  });

  it('exits with 0 when every row is imported, and with 1, importing nothing, for a bad header or a missing file', () => {
    writeFileSync(join(dir, 'good.csv'), 'NUMBER,Activation_Code\n5065700000000010,WXYZ\n');
    const good = cli('cards', 'import', join(dir, 'good.csv'));
    expect([good.status, good.stdout]).toEqual([EXIT_OK, 'Imported 1 card.\n']);

    writeFileSync(join(dir, 'bad.csv'), 'number,code\n5065700000000011,WXYZ\n');
    const bad = cli('cards', 'import', join(dir, 'bad.csv'));
    expect(bad.status).toBe(EXIT_ERROR);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain('Error: unknown column "code" in the header');
    expect(sqlite('select * from cards where number = ?', '5065700000000011')).toEqual([]);

    const missing = cli('cards', 'import', join(dir, 'nowhere.csv'));
    expect(missing.status).toBe(EXIT_ERROR);
    expect(missing.stderr).toBe(`Error: cannot read ${join(dir, 'nowhere.csv')}: no such file\n`);
  });

  it('creates an invitation and prints its code once', () => {
    const run = cli(
      'invitations',
      'create',
      '--email',
      'Anna@Example.be',
      '--firstname',
      'Anna',
      '--language',
      'nl',
      '--company',
      'Acme, Inc',
      '--mfa-forced',
      '--days',
      '7',
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(EXIT_OK);
    expect(run.stdout).toMatch(
      /^Invitation created for anna@example\.be, valid until \d{4}-\d\d-\d\dT[\d:.]+Z \(7 days\)\.\n/,
    );
    const code = CODE.exec(run.stdout)![1]!;
    const [row] = sqlite<{ email: string; company: string; mfa_forced: number; expires_at: string }>(
      'select * from invitations where code_hash = ?',
      invitationCodeHash(SECRET_KEY, code),
    );
    expect(row).toMatchObject({ email: 'anna@example.be', company: 'Acme, Inc', mfa_forced: 1 });
    expect(Date.parse(row!.expires_at) - Date.now()).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(run.stdout).toContain(row!.expires_at);
  });

  it('names the bad option of an invitation and creates nothing', () => {
    const before = sqlite('select id from invitations').length;
    const runs = [
      [cli('invitations', 'create', '--email', 'nope'), 'Error: --email "nope" is not a valid email address\n'],
      [
        cli('invitations', 'create', '--email', 'a@example.be', '--language', 'xx'),
        'Error: --language "xx" is not one of en, en_LU, fr, fr_LU, nl, de_LU\n',
      ],
      [
        cli('invitations', 'create', '--email', 'a@example.be', '--days', '120'),
        'Error: --days must be a whole number of days from 1 to 90 (got 120)\n',
      ],
      [
        cli('invitations', 'create', '--email', 'a@example.be', '--days', 'ten'),
        'Error: --days must be a whole number of days from 1 to 90 (got "ten")\n',
      ],
      [cli('invitations', 'create', '--firstname', 'Anna'), 'Error: --email is required\n'],
    ] as const;
    for (const [run, message] of runs) expect([run.status, run.stderr]).toEqual([EXIT_ERROR, message]);
    expect(sqlite('select id from invitations')).toHaveLength(before);
  });

  it('blocks and unblocks a card, and refuses an unknown one', () => {
    writeFileSync(join(dir, 'one.csv'), 'number,activation_code\n5065700000000020,ABCD\n');
    expect(cli('cards', 'import', join(dir, 'one.csv')).status).toBe(EXIT_OK);
    const status = () =>
      sqlite<{ status: string }>('select status from cards where number = ?', '5065700000000020')[0]!.status;
    const block = cli('cards', 'block', '5065 7000 0000 0020');
    expect([block.status, block.stdout]).toEqual([EXIT_OK, 'Card 5065700000000020 is now blocked.\n']);
    expect(status()).toBe('blocked');
    const unblock = cli('cards', 'unblock', '5065700000000020');
    expect([unblock.status, unblock.stdout]).toEqual([EXIT_OK, 'Card 5065700000000020 is now unblocked.\n']);
    expect(status()).toBe('issued');
    const unknown = cli('cards', 'block', '5065700000000099');
    expect([unknown.status, unknown.stderr]).toEqual([EXIT_ERROR, 'Error: no card has the number 5065700000000099\n']);
    const malformed = cli('cards', 'block', '1234');
    expect([malformed.status, malformed.stderr]).toEqual([
      EXIT_ERROR,
      'Error: "1234": the card number must be 16 digits starting with 5065\n',
    ]);
  });

  it('shows its usage for help (exit 0), and for no or an unknown command (exit 1)', () => {
    const help = cli('help');
    expect([help.status, help.stdout]).toEqual([EXIT_OK, USAGE]);
    const none = cli();
    expect([none.status, none.stderr]).toEqual([EXIT_ERROR, USAGE]);
    const unknown = cli('cards', 'burn');
    expect(unknown.status).toBe(EXIT_ERROR);
    expect(unknown.stderr).toBe(`Unknown command "cards burn".\n\n${USAGE}`);
  });

  it('rotates the OIDC signing keys and lists them', () => {
    const rotate = cli('oidc-keys', 'rotate');
    expect([rotate.status, rotate.stderr]).toEqual([EXIT_OK, '']);

    const list = cli('oidc-keys', 'list');
    expect(list.status).toBe(EXIT_OK);
    expect(list.stdout.split('\n').filter((line) => line.includes('- (signing)'))).toHaveLength(2);
    expect(sqlite<{ n: number }>('select count(*) as n from oidc_signing_keys')[0]!.n).toBe(2);
  });

  it('registers a client, lists it, edits it and removes it with what was issued to it', () => {
    writeFileSync(join(dir, 'acme.png'), LOGO);
    const add = cli(
      'clients',
      'add',
      'acme-shop',
      '--name',
      'Acme Shop',
      '--name-fr',
      'Boutique Acme',
      '--name-de_LU',
      'Acme Laden',
      '--redirect-uri',
      'https://shop.acme.example/cb',
      '--redirect-uri',
      'http://localhost:8080/cb',
      '--scope',
      'balance',
      '--scope',
      'user',
      '--policy-uri',
      'https://shop.acme.example/privacy',
      '--admin-email',
      'Ops@Acme.example',
      '--require-mfa',
      '--confidential',
      '--logo',
      'acme.png',
    );
    expect([add.status, add.stderr]).toEqual([EXIT_OK, '']);
    const secret = /^Secret: ([\w-]{43})$/m.exec(add.stdout)![1]!;
    expect(add.stdout).toBe(
      'Client acme-shop registered (partner, confidential (client_secret_basic): authenticates with its secret and PKCE).\n' +
        `Secret: ${secret}\nThe secret is shown only this once (only its digest is stored): hand it to the client's developers now.\n` +
        // Without Redis the running instances read the client anew within 30 s (server/oidc/clients.ts).
        'The running instances use the change within 30 s.\n',
    );
    type ClientRow = {
      client_id: string;
      names: string;
      redirect_uris: string;
      scopes: string;
      admin_email: string;
      require_mfa: number;
      secret_hash: string | null;
      logo_version: string | null;
    };
    const client = () => sqlite<ClientRow>('select * from oauth_clients where client_id = ?', 'acme-shop')[0];
    const logos = () =>
      sqlite<{ client_id: string; content_type: string; data: string }>('select * from oauth_client_logos');
    // The logo file, read from the working directory, is kept in the database under its version.
    expect(logos()).toEqual([
      {
        client_id: 'acme-shop',
        content_type: 'image/png',
        data: LOGO.toString('base64'),
        updated_at: expect.any(String),
      },
    ]);
    expect(client()!.logo_version).toBe(logoVersionOf(LOGO));
    expect(client()).toMatchObject({
      admin_email: 'ops@acme.example',
      require_mfa: 1,
      scopes: '["balance","user"]',
      redirect_uris: '["https://shop.acme.example/cb","http://localhost:8080/cb"]',
      names: '{"fr":"Boutique Acme","de_LU":"Acme Laden"}',
    });
    expect(clientSecretMatches(client()!.secret_hash!, secret)).toBe(true);
    expect(JSON.stringify(sqlite('select * from oauth_clients'))).not.toContain(secret);

    const again = cli('clients', 'add', 'acme-shop', '--name', 'Other', '--redirect-uri', 'https://other.example/cb');
    expect([again.status, again.stdout, again.stderr]).toEqual([
      EXIT_ERROR,
      '',
      'Error: a client with the id "acme-shop" is already registered\n',
    ]);

    cli(
      'clients',
      'add',
      'public-app',
      '--name',
      'Public app',
      '--redirect-uri',
      'https://app.example/cb',
      '--first-party',
    );
    const list = cli('clients', 'list');
    expect(list.status).toBe(EXIT_OK);
    expect(
      list.stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split(/ {2,}/)),
    ).toEqual([
      ['CLIENT_ID', 'NAME', 'PARTY', 'AUTH', 'REDIRECT_URIS', 'POST_LOGOUT_REDIRECT_URIS', 'SCOPES'],
      [
        'acme-shop',
        'Acme Shop',
        'partner',
        'confidential (client_secret_basic)',
        'https://shop.acme.example/cb,http://localhost:8080/cb',
        '-',
        'balance,user',
      ],
      ['public-app', 'Public app', 'first-party', 'public', 'https://app.example/cb', '-', '-'],
    ]);

    const rotate = cli(
      'clients',
      'edit',
      'acme-shop',
      '--rotate-secret',
      '--name-fr',
      'Boutique',
      '--scope',
      'balance,transaction',
      '--policy-uri',
      '',
    );
    expect([rotate.status, rotate.stderr]).toEqual([EXIT_OK, '']);
    const rotated = /^Secret: ([\w-]{43})$/m.exec(rotate.stdout)![1]!;
    expect(rotate.stdout).toMatch(
      /^Client acme-shop updated \(partner, confidential \(client_secret_basic\)\)\.\nSecret: .*\n.*\nThe previous secret no longer works\.\nThe running instances use the change within 30 s\.\n$/,
    );
    expect([
      clientSecretMatches(client()!.secret_hash!, secret),
      clientSecretMatches(client()!.secret_hash!, rotated),
    ]).toEqual([false, true]);
    expect(client()).toMatchObject({
      names: '{"fr":"Boutique","de_LU":"Acme Laden"}',
      scopes: '["balance","transaction"]',
      policy_uri: null,
    });
    const toPublic = cli('clients', 'edit', 'acme-shop', '--public', '--no-require-mfa');
    expect([toPublic.status, toPublic.stdout]).toEqual([
      EXIT_OK,
      'Client acme-shop updated (partner, public).\nIt has no secret any more: it authenticates with PKCE alone.\nThe running instances use the change within 30 s.\n',
    ]);
    expect(client()).toMatchObject({ secret_hash: null, require_mfa: 0 });

    const later = new Date(Date.now() + 3_600_000).toISOString();
    const database = new DatabaseSync(env.SQLITE_PATH!);
    try {
      const insert = database.prepare(
        'insert into oidc_models (model, id, payload, grant_id, client_id, expires_at) values (?, ?, ?, ?, ?, ?)',
      );
      insert.run('Grant', 'g1', '{}', null, 'acme-shop', later);
      insert.run('RefreshToken', 'rt1', '{}', 'g1', 'acme-shop', later);
      insert.run('AuthorizationCode', 'c1', '{}', 'g1', null, later);
      insert.run('Grant', 'g2', '{}', null, 'public-app', later);
    } finally {
      database.close();
    }
    const remove = cli('clients', 'remove', 'acme-shop');
    expect([remove.status, remove.stdout, remove.stderr]).toEqual([
      EXIT_OK,
      'Client acme-shop removed; revoked 1 grant and 2 codes and tokens issued to it.\nThe running instances use the change within 30 s.\n',
      '',
    ]);
    expect(client()).toBeUndefined();
    expect(logos()).toEqual([]);
    expect(sqlite<{ id: string }>('select id from oidc_models order by id').map((r) => r.id)).toEqual(['g2']);
    const gone = cli('clients', 'remove', 'acme-shop');
    expect([gone.status, gone.stderr]).toEqual([EXIT_ERROR, 'Error: no client has the id "acme-shop"\n']);
  });

  it('registers a FAPI 2.0 client with its public keys, replaces them, and refuses a private key or a secret', () => {
    const publicKey = {
      kty: 'EC',
      crv: 'P-256',
      x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
      y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
      alg: 'ES256',
      use: 'sig',
    };
    writeFileSync(join(dir, 'bank.jwks.json'), JSON.stringify({ keys: [publicKey] }));
    writeFileSync(
      join(dir, 'private.jwks.json'),
      JSON.stringify({ keys: [{ ...publicKey, d: 'jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI' }] }),
    );
    const ok = ['--name', 'Bank', '--redirect-uri', 'https://bank.example/cb'];
    const noKeys = cli('clients', 'add', 'bank', ...ok, '--fapi2');
    expect([noKeys.status, noKeys.stderr]).toEqual([
      EXIT_ERROR,
      'Error: --jwks a FAPI 2.0 client needs its public keys: a JWKS or a jwks_uri, one of the two\n',
    ]);
    const secret = cli('clients', 'add', 'bank', ...ok, '--fapi2', '--jwks', 'bank.jwks.json', '--confidential');
    expect(secret.stderr).toBe('Error: --fapi2 a FAPI 2.0 client signs with its own key: it has no secret\n');
    const leaked = cli('clients', 'add', 'bank', ...ok, '--fapi2', '--jwks', 'private.jwks.json');
    expect(leaked.stderr).toBe('Error: --jwks holds a private key: register the public keys only\n');
    expect(sqlite('select client_id from oauth_clients where client_id = ?', 'bank')).toEqual([]);

    const add = cli('clients', 'add', 'bank', ...ok, '--fapi2', '--jwks', 'bank.jwks.json');
    expect([add.status, add.stderr]).toEqual([EXIT_OK, '']);
    expect(add.stdout).toMatch(
      /^Client bank registered \(partner, FAPI 2\.0 \(private_key_jwt\): signs with its own key/,
    );
    expect(cli('clients', 'list').stdout).toMatch(/bank +Bank +partner +FAPI 2\.0 \(private_key_jwt\)/);
    type Row = { profile: string | null; jwks: string | null; jwks_uri: string | null };
    const row = () => sqlite<Row>('select profile, jwks, jwks_uri from oauth_clients where client_id = ?', 'bank')[0];
    expect(row()).toEqual({ profile: 'fapi2', jwks: JSON.stringify({ keys: [publicKey] }), jwks_uri: null });
    // Key rotation: its keys move to a jwks_uri (the registered JWKS goes), then it leaves the profile.
    expect(cli('clients', 'edit', 'bank', '--jwks', '', '--jwks-uri', 'https://bank.example/jwks').status).toBe(
      EXIT_OK,
    );
    expect(row()).toEqual({ profile: 'fapi2', jwks: null, jwks_uri: 'https://bank.example/jwks' });
    expect(cli('clients', 'edit', 'bank', '--no-fapi2').status).toBe(EXIT_OK);
    expect(row()!.profile).toBeNull();
    cli('clients', 'remove', 'bank');
  });

  it('registers post-logout redirect URIs and a client that posts its secret in the form body', () => {
    const add = cli(
      'clients',
      'add',
      'poster',
      '--name',
      'Poster',
      '--redirect-uri',
      'https://poster.example/cb',
      '--post-logout-redirect-uri',
      'https://poster.example/bye',
      '--post-logout-redirect-uri',
      'https://poster.example/bye',
      '--confidential',
      '--token-endpoint-auth-method',
      'client_secret_post',
    );
    expect([add.status, add.stderr]).toEqual([EXIT_OK, '']);
    expect(add.stdout).toMatch(
      /^Client poster registered \(partner, confidential \(client_secret_post\): authenticates with its secret and PKCE\)\./,
    );
    type Row = { post_logout_redirect_uris: string | null; token_endpoint_auth_method: string | null };
    const row = () =>
      sqlite<Row>(
        'select post_logout_redirect_uris, token_endpoint_auth_method from oauth_clients where client_id = ?',
        'poster',
      )[0];
    expect(row()).toEqual({
      post_logout_redirect_uris: '["https://poster.example/bye"]',
      token_endpoint_auth_method: 'client_secret_post',
    });
    const list = cli('clients', 'list');
    expect(list.stdout).toMatch(
      /poster +Poster +partner +confidential \(client_secret_post\) +\S+ +https:\/\/poster\.example\/bye/,
    );

    // The list is replaced; an empty value empties it. Made public, the client presents no secret.
    expect(cli('clients', 'edit', 'poster', '--post-logout-redirect-uri', 'https://poster.example/out').status).toBe(
      EXIT_OK,
    );
    expect(row()!.post_logout_redirect_uris).toBe('["https://poster.example/out"]');
    expect(cli('clients', 'edit', 'poster', '--post-logout-redirect-uri', '', '--public').status).toBe(EXIT_OK);
    expect(row()).toEqual({ post_logout_redirect_uris: '[]', token_endpoint_auth_method: null });
    const refused = cli('clients', 'edit', 'poster', '--token-endpoint-auth-method', 'client_secret_post');
    expect([refused.status, refused.stderr]).toEqual([
      EXIT_ERROR,
      'Error: --token-endpoint-auth-method needs a confidential client (one with a secret)\n',
    ]);
    cli('clients', 'remove', 'poster');
  });

  it('refuses a bad post-logout redirect URI or token endpoint method, and writes nothing', () => {
    const before = sqlite('select client_id from oauth_clients').length;
    const ok = ['--name', 'X', '--redirect-uri', 'https://x.example/cb'];
    const runs = [
      [
        cli('clients', 'add', 'x', ...ok, '--post-logout-redirect-uri', 'http://x.example/bye'),
        'Error: --post-logout-redirect-uri "http://x.example/bye" must be https (http only for localhost and 127.0.0.1)\n',
      ],
      [
        cli('clients', 'add', 'x', ...ok, '--confidential', '--token-endpoint-auth-method', 'client_secret_jwt'),
        'Error: --token-endpoint-auth-method "client_secret_jwt" is not one of client_secret_basic, client_secret_post\n',
      ],
      [
        cli('clients', 'add', 'x', ...ok, '--token-endpoint-auth-method', 'client_secret_post'),
        'Error: --token-endpoint-auth-method needs --confidential (a public client presents no secret)\n',
      ],
    ] as const;
    for (const [run, message] of runs) expect([run.status, run.stdout, run.stderr]).toEqual([EXIT_ERROR, '', message]);
    expect(sqlite('select client_id from oauth_clients')).toHaveLength(before);
  });

  it('names the bad option of a client and writes nothing', () => {
    writeFileSync(join(dir, 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    const before = sqlite('select client_id from oauth_clients').length;
    const ok = ['--name', 'X', '--redirect-uri', 'https://x.example/cb'];
    const runs = [
      [cli('clients', 'add', 'x', '--redirect-uri', 'https://x.example/cb'), 'Error: --name is required\n'],
      [cli('clients', 'add', 'x', '--name', 'X'), 'Error: --redirect-uri is required (once per URI)\n'],
      [
        cli('clients', 'add', 'x y', ...ok),
        'Error: client id "x y" must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit\n',
      ],
      [
        cli('clients', 'add', 'x', '--name', 'X', '--redirect-uri', 'http://x.example/cb'),
        'Error: --redirect-uri "http://x.example/cb" must be https (http only for localhost and 127.0.0.1)\n',
      ],
      [
        cli('clients', 'add', 'x', '--name', 'X', '--redirect-uri', 'https://x.example/cb#top'),
        'Error: --redirect-uri "https://x.example/cb#top" may not have a fragment (#)\n',
      ],
      [
        cli('clients', 'add', 'x', '--name', 'X', '--redirect-uri', '/cb'),
        'Error: --redirect-uri "/cb" is not an absolute URI\n',
      ],
      [
        cli('clients', 'add', 'x', ...ok, '--scope', 'openid'),
        expect.stringMatching(/^Error: --scope "openid" is not a consent scope \(balance, .*\)\n$/),
      ],
      [
        cli('clients', 'add', 'x', ...ok, '--admin-email', 'nope'),
        'Error: --admin-email "nope" is not a valid email address\n',
      ],
      [
        cli('clients', 'add', 'x', ...ok, '--logo', 'logo.svg'),
        'Error: --logo the image is an SVG image: give a PNG, JPEG or WebP one\n',
      ],
      [
        cli('clients', 'add', 'x', ...ok, '--logo', 'missing.png'),
        `Error: cannot read ${join(dir, 'missing.png')}: no such file\n`,
      ],
      [cli('clients', 'add', 'x', ...ok, '--name-nl', ' '), 'Error: --name-nl may not be empty\n'],
      [
        cli('clients', 'add', 'x', ...ok, '--colour', 'red'),
        expect.stringMatching(/^Error: Unknown option '--colour'/),
      ],
      [cli('clients', 'edit', 'public-app'), 'Error: nothing to change: give at least one option\n'],
      [
        cli('clients', 'edit', 'public-app', '--public', '--rotate-secret'),
        'Error: --public cannot go with --confidential or --rotate-secret\n',
      ],
      [cli('clients', 'edit', 'nobody', '--name', 'Y'), 'Error: no client has the id "nobody"\n'],
      [cli('clients', 'remove'), 'Error: expected one client id, got none\n'],
    ] as const;
    for (const [run, message] of runs) expect([run.status, run.stdout, run.stderr]).toEqual([EXIT_ERROR, '', message]);
    expect(sqlite('select client_id from oauth_clients')).toHaveLength(before);
  });

  it('stops on a bad configuration, naming the variable', () => {
    const run = spawnSync(process.execPath, ['scripts/cli.ts', 'cards', 'block', '5065700000000020'], {
      cwd: root,
      env: { ...env, SECRET_KEY: 'short' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect([run.status, run.stderr]).toEqual([
      EXIT_ERROR,
      'Configuration error: SECRET_KEY must be 32 or more characters\n',
    ]);
  });
});

const kinds = await databaseKinds();

describe.each(kinds)('the command on %s', (kind) => {
  let dir: string;
  let env: Record<string, string>;
  let drop: (() => Promise<void>) | null = null;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tessera-cli-'));
    env = { NODE_ENV: 'test', SECRET_KEY, SQLITE_PATH: join(dir, 'tessera.sqlite') };
    if (kind === 'postgres') {
      const database = await createPostgresDatabase();
      env.DATABASE_URL = database.url;
      drop = database.drop;
    }
  });
  afterAll(async () => {
    await drop?.();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = async (...argv: string[]) => {
    let stdout = '';
    let stderr = '';
    const status = await runCli(argv, {
      env,
      cwd: dir,
      stdout: (t) => {
        stdout += t;
      },
      stderr: (t) => {
        stderr += t;
      },
    });
    return { status, stdout, stderr };
  };

  it('imports, blocks and invites on the database of the environment', async () => {
    writeFileSync(
      join(dir, 'cards.csv'),
      'number,activation_code,language\n5065800000000001,ABCD,fr\n5065800000000002,EFGH,xx\n',
    );
    expect(await run('cards', 'import', 'cards.csv')).toEqual({
      status: EXIT_REFUSED_ROWS,
      stdout:
        'Imported 1 card; refused 1 row:\n  line 3: the language "xx" is not one of en, en_LU, fr, fr_LU, nl, de_LU\n',
      stderr: '',
    });
    expect(await run('cards', 'block', '5065800000000001')).toMatchObject({
      status: EXIT_OK,
      stdout: 'Card 5065800000000001 is now blocked.\n',
    });
    expect(await run('cards', 'block', '5065800000000001')).toMatchObject({
      status: EXIT_OK,
      stdout: 'Card 5065800000000001 was already blocked.\n',
    });
    expect(await run('cards', 'unblock', '5065800000000002')).toMatchObject({
      status: EXIT_ERROR,
      stderr: 'Error: no card has the number 5065800000000002\n',
    });
    const invited = await run('invitations', 'create', '--email', 'x@example.be');
    expect(invited.status).toBe(EXIT_OK);
    expect(invited.stdout).toMatch(CODE);
    expect(invited.stdout).toContain('(14 days)');
  });

  it('lists and rotates the OIDC signing keys, and refuses to rotate with another SECRET_KEY', async () => {
    expect(await run('oidc-keys', 'list')).toEqual({
      status: EXIT_OK,
      stdout: 'No OIDC signing keys yet: the server creates them when it first starts (or run oidc-keys rotate).\n',
      stderr: '',
    });
    const first = await run('oidc-keys', 'rotate');
    expect(first).toMatchObject({ status: EXIT_OK, stderr: '' });
    expect(first.stdout).toMatch(/^New OIDC signing keys [\w-]{22}, [\w-]{22} now sign\.\n$/);
    const second = await run('oidc-keys', 'rotate');
    expect(second.status).toBe(EXIT_OK);
    expect(second.stdout).toMatch(
      /^New OIDC signing keys [\w-]{22}, [\w-]{22} now sign; the previous ones stay published for 14 days\.\nThe running instances use them within 30 s\.\n$/,
    );
    const [newKids, oldKids] = [second, first].map((r) => /keys ([\w-]+), ([\w-]+) now/.exec(r.stdout)!.slice(1));

    const listed = await run('oidc-keys', 'list');
    expect(listed.status).toBe(EXIT_OK);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^KID +ALG +CREATED +RETIRED$/);
    expect(lines.slice(1).map((line) => line.split(/ {2,}/))).toEqual([
      [newKids![0], 'RS256', expect.stringMatching(/^\d{4}-\d\d-\d\dT/), '- (signing)'],
      [newKids![1], 'ES256', expect.stringMatching(/^\d{4}-\d\d-\d\dT/), '- (signing)'],
      [
        oldKids![0],
        'RS256',
        expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z \(still published\)$/),
      ],
      [
        oldKids![1],
        'ES256',
        expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        expect.stringMatching(/ \(still published\)$/),
      ],
    ]);

    let stderr = '';
    const status = await runCli(['oidc-keys', 'rotate'], {
      env: { ...env, SECRET_KEY: 'another-secret-key-of-at-least-32-characters' },
      cwd: dir,
      stdout: () => {},
      stderr: (t) => {
        stderr += t;
      },
    });
    const wrongKey = { status, stderr };
    expect(wrongKey.stderr).toMatch(
      /^Configuration error: the OIDC signing key [\w-]+ cannot be decrypted with this SECRET_KEY: run with the SECRET_KEY the keys were created with\n$/,
    );
    expect(wrongKey.status).toBe(EXIT_ERROR);
    expect((await run('oidc-keys', 'list')).stdout.trimEnd().split('\n')).toHaveLength(5);
    expect(await run('oidc-keys', 'list', 'extra')).toEqual({
      status: EXIT_ERROR,
      stdout: '',
      stderr: 'Error: unexpected argument "extra"\n',
    });
  });

  it('shows progress on stderr for a long import', async () => {
    const rows = Array.from({ length: 1200 }, (_, i) => `${5065810000000000 + i},CODE`);
    writeFileSync(join(dir, 'long.csv'), ['number,activation_code', ...rows].join('\n'));
    expect(await run('cards', 'import', join(dir, 'long.csv'))).toEqual({
      status: EXIT_OK,
      stdout: 'Imported 1200 cards.\n',
      stderr: '… 1000 of 1200 cards written\n',
    });
  });
});

describe('the command without its database', () => {
  it('exits with 1 and says which database it could not reach', async () => {
    let stderr = '';
    const status = await runCli(['cards', 'block', '5065800000000001'], {
      env: { NODE_ENV: 'test', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' },
      stdout: () => {},
      stderr: (t) => {
        stderr += t;
      },
    });
    expect(status).toBe(EXIT_ERROR);
    expect(stderr).toMatch(/^Error: cannot reach the PostgreSQL database of DATABASE_URL: .*ECONNREFUSED/);
  });
});
