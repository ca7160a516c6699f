import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../db/index.ts';
import { activationCodeMatches } from '../methods/activation-code.ts';
import { databaseKinds, startTestServer, type TestServer } from '../testing/harness.ts';
import { CardImportError, importCards, type ImportProgress } from './import.ts';

const kinds = await databaseKinds();

const HEADER = 'number,activation_code,firstname,lastname,email,phone,language,company,beneficiary_id';

async function cards(db: Db) {
  return db.selectFrom('cards').selectAll().orderBy('number').execute();
}

/** Runs `importCards` expecting a fatal error; gives it. */
async function fatal(run: Promise<unknown>): Promise<CardImportError> {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CardImportError);
  return error as CardImportError;
}

describe.each(kinds)('importing cards on %s', (kind) => {
  let server: TestServer;
  let db: Db;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer(kind, {}, { seed: false });
    db = server.ctx.db;
    key = server.ctx.config.secretKey;
  });
  afterAll(async () => server?.stop());
  beforeEach(async () => {
    await db.deleteFrom('cards').execute();
  });

  it('stores the good rows and reports each bad one with its line and reason', async () => {
    await db
      .insertInto('cards')
      .values({
        id: crypto.randomUUID(),
        number: '5065100000000099',
        user_id: null,
        activated_at: null,
        created_at: new Date().toISOString(),
      })
      .execute();
    const csv = [
      HEADER,
      '5065 1000 0000 0001,ab12-cd34,Jane,Doe,JANE.DOE@Example.be,0470 12 34 56,NL,Acme,B-1', // 2 good
      '5065100000000002,ZZZZ,,,,,,,', // 3 good, nothing optional
      '4065100000000003,ABCD,,,,,,,', // 4 bad number
      '5065100000000004,AB!,,,,,,,', // 5 bad activation code
      '5065100000000001,EFGH,,,,,,,', // 6 repeats line 2
      '5065100000000099,ABCD,,,,,,,', // 7 already in the database
      '5065100000000007,ABCD,,,not-an-email,,,,', // 8 bad email
      '5065100000000008,ABCD,,,,12,,,', // 9 bad phone
      '5065100000000009,ABCD,,,,,de,,', // 10 bad language
      `5065100000000010,ABCD,${'x'.repeat(101)},,,,,,`, // 11 too long
      `5065100000000011,ABCD,${'y'.repeat(100)},,,+352 621 123 456,fr_lu,,`, // 12 good: 100 characters exactly
      ',,,,,,,,', // 13 empty: skipped
      '5065100000000013,,,,,,,,', // 14 no activation code
    ].join('\n');
    const result = await importCards(db, key, csv);
    expect(result.imported).toBe(3);
    expect(result.refused).toEqual([
      { line: 4, reason: 'the card number must be 16 digits starting with 5065' },
      { line: 5, reason: 'the activation code must be 4 to 12 letters and digits (spaces and dashes ignored)' },
      { line: 6, reason: 'the card number 5065100000000001 already appears on line 2' },
      { line: 7, reason: 'the card 5065100000000099 is already imported' },
      { line: 8, reason: 'the email address "not-an-email" is not valid' },
      { line: 9, reason: 'the phone number "12" is not valid' },
      { line: 10, reason: 'the language "de" is not one of en, en_LU, fr, fr_LU, nl, de_LU' },
      { line: 11, reason: 'the first name is longer than 100 characters' },
      { line: 14, reason: 'the activation code is missing' },
    ]);

    const stored = await cards(db);
    expect(stored.map((c) => c.number)).toEqual([
      '5065100000000001',
      '5065100000000002',
      '5065100000000011',
      '5065100000000099',
    ]);
    const jane = stored[0]!;
    expect(jane).toMatchObject({
      user_id: null,
      activated_at: null,
      status: 'issued',
      holder_firstname: 'Jane',
      holder_lastname: 'Doe',
      holder_email: 'jane.doe@example.be',
      holder_phone: '+32470123456',
      holder_language: 'nl',
      company: 'Acme',
      beneficiary_id: 'B-1',
    });
    expect(Date.parse(jane.created_at)).toBeGreaterThan(Date.now() - 60_000);
    // The code is kept only as a keyed hash, bound to the card and found however it is typed.
    expect(jane.activation_code_hash).not.toContain('AB12');
    expect(activationCodeMatches(key, jane, 'AB12CD34')).toBe(true);
    expect(activationCodeMatches(key, jane, 'ab12 cd34')).toBe(true);
    expect(activationCodeMatches(key, jane, 'AB12CD35')).toBe(false);
    expect(activationCodeMatches(key, { ...jane, number: '5065100000000002' }, 'AB12CD34')).toBe(false);
    expect(activationCodeMatches('another-secret-key-of-32-characters!!', jane, 'AB12CD34')).toBe(false);
    const minimal = stored[1]!;
    expect(minimal).toMatchObject({
      holder_firstname: null,
      holder_email: null,
      holder_phone: null,
      holder_language: null,
      company: null,
      beneficiary_id: null,
    });
    expect(activationCodeMatches(key, minimal, 'zzzz')).toBe(true);
    expect(stored[2]).toMatchObject({
      holder_firstname: 'y'.repeat(100),
      holder_phone: '+352621123456',
      holder_language: 'fr_LU',
    });
    // The card that was there already is left as it was.
    expect(stored[3]!.activation_code_hash).toBeNull();
  });

  it('reads quoted fields with commas and quotes, CRLF, a BOM, blank lines and columns in any order and case', async () => {
    const csv =
      '\uFEFFActivation_Code,NUMBER,Company\r\n' +
      'ABCD1234,5065200000000001,"Acme, ""Best"" Inc."\r\n' + // 2
      '\r\n' + // 3
      'EFGH,"5065 2000 0000 0002",\r\n' + // 4
      'IJKL,5065200000000003,"two\r\nlines"\r\n' + // 5-6: refused, line 5
      ',,\r\n' + // 7
      'MNOP,5065200000000004,x,extra\r\n' + // 8
      'QRST,5065200000000005,"Last, Co"'; // 9, no line end
    const result = await importCards(db, key, csv);
    expect(result.refused).toEqual([
      { line: 5, reason: 'the company contains a line break or another control character' },
      { line: 8, reason: 'the row has 4 fields where the header has 3' },
    ]);
    expect(result.imported).toBe(3);
    const stored = await cards(db);
    expect(stored.map((c) => [c.number, c.company])).toEqual([
      ['5065200000000001', 'Acme, "Best" Inc.'],
      ['5065200000000002', null],
      ['5065200000000005', 'Last, Co'],
    ]);
    expect(activationCodeMatches(key, stored[0]!, 'ABCD1234')).toBe(true);
  });

  it('refuses the whole file, storing nothing, for a missing or unknown column, an empty file or broken CSV', async () => {
    const good = '5065300000000001,ABCD';
    const missing = await fatal(importCards(db, key, `number,firstname\n5065300000000001,Jane`));
    expect(missing.code).toBe('missing_column');
    expect(missing.column).toBe('activation_code');
    expect(missing.message).toContain('"activation_code"');

    const unknown = await fatal(importCards(db, key, `number,activation_code,Colour\n${good},blue`));
    expect(unknown.code).toBe('unknown_column');
    expect(unknown.column).toBe('Colour');
    expect(unknown.message).toContain('unknown column "Colour"');

    const semicolons = await fatal(importCards(db, key, `number;activation_code\n5065300000000001;ABCD`));
    expect(semicolons.message).toContain('separated by semicolons');

    expect((await fatal(importCards(db, key, `number,activation_code,\n${good},`))).message).toBe(
      'column 3 of the header has no name; the columns are number, activation_code, firstname, lastname, email, phone, language, company, beneficiary_id',
    );
    expect((await fatal(importCards(db, key, `number,activation_code,NUMBER\n${good},5065300000000002`))).code).toBe(
      'duplicate_column',
    );
    expect((await fatal(importCards(db, key, '\uFEFF\r\n\r\n'))).code).toBe('empty_file');

    const broken = await fatal(
      importCards(db, key, `number,activation_code\n${good}\n5065300000000002,"ABCD\n5065300000000003,ABCD\n`),
    );
    expect(broken.code).toBe('malformed_csv');
    expect(await cards(db)).toEqual([]);
  });

  it('imports each number once when two imports of the same file race', async () => {
    const csv = [
      HEADER,
      ...Array.from({ length: 40 }, (_, i) => `50654000000000${String(i).padStart(2, '0')},CODE${i},,,,,,,`),
    ].join('\n');
    const [a, b] = await Promise.all([importCards(db, key, csv), importCards(db, key, csv)]);
    expect(a.imported + b.imported).toBe(40);
    const lost = [...a.refused, ...b.refused];
    expect(lost).toHaveLength(40);
    for (const refusal of lost) expect(refusal.reason).toMatch(/^the card 5065400000000\d{3} is already imported$/);
    expect(await cards(db)).toHaveLength(40);
  });

  it('writes large files in batches and reports progress every 1,000 rows', async () => {
    const rows = Array.from({ length: 2500 }, (_, i) => `${5065500000000000 + i},CODE${i}`);
    rows.splice(1200, 0, 'bad-number,ABCD'); // line 1202
    const progress: ImportProgress[] = [];
    const result = await importCards(db, key, ['number,activation_code', ...rows].join('\r\n'), (p) =>
      progress.push(p),
    );
    expect(result).toEqual({
      imported: 2500,
      refused: [{ line: 1202, reason: 'the card number must be 16 digits starting with 5065' }],
    });
    expect(progress).toEqual([
      { done: 1000, total: 2500 },
      { done: 2000, total: 2500 },
    ]);
    const count = await db
      .selectFrom('cards')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(2500);
    const last = await db
      .selectFrom('cards')
      .selectAll()
      .where('number', '=', String(5065500000000000 + 2499))
      .executeTakeFirstOrThrow();
    expect(activationCodeMatches(key, last, 'code-2499')).toBe(true);
  });

  it('keeps the batches written before a database failure, says how many, and imports the rest on a second run', async () => {
    const csv = [
      'number,activation_code',
      ...Array.from({ length: 700 }, (_, i) => `${5065900000000000 + i},CODE${i}`),
    ].join('\n');
    let transactions = 0;
    const failing = {
      transaction: () => {
        transactions += 1;
        if (transactions === 2) throw new Error('connection lost');
        return db.transaction();
      },
    } as unknown as Db;
    const error = await fatal(importCards(failing, key, csv));
    expect(error.code).toBe('write_failed');
    expect(error.message).toContain('after 500 cards were imported (connection lost)');
    expect(await cards(db)).toHaveLength(500);
    const rerun = await importCards(db, key, csv);
    expect(rerun.imported).toBe(200);
    expect(rerun.refused).toHaveLength(500);
    expect(rerun.refused[0]).toEqual({ line: 2, reason: 'the card 5065900000000000 is already imported' });
    expect(await cards(db)).toHaveLength(700);
  });
});
