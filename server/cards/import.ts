// Importing benefit cards from an operator's CSV file (`npm run cli -- cards import`). A bad row
// never stops the others: every row is checked on its own, the good ones are stored in batches,
// and each refused row comes back with its line in the file and the reason. Only a problem with
// the file as a whole (no header, an unknown or missing column, broken CSV) is fatal, and then
// nothing is stored; a database failure midway keeps the batches already written.
import { parse, type CsvError } from 'csv-parse/sync';
import { LOCALES, type Locale } from '../../contract/constants.ts';
import { normalisePhone } from '../../contract/phone.ts';
import { isActivationCode, isCardNumber, isEmail, normaliseCardNumber, normaliseEmail } from '../../contract/rules.ts';
import { nowIso, type Db } from '../db/index.ts';
import { activationCodeHash } from '../methods/activation-code.ts';

export const REQUIRED_COLUMNS = ['number', 'activation_code'] as const;
export const OPTIONAL_COLUMNS = [
  'firstname',
  'lastname',
  'email',
  'phone',
  'language',
  'company',
  'beneficiary_id',
] as const;
export const CARD_COLUMNS: readonly string[] = [...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS];
type Column = (typeof REQUIRED_COLUMNS)[number] | (typeof OPTIONAL_COLUMNS)[number];

/** Longest free-text value (names, company, beneficiary id), after trimming. */
export const MAX_TEXT_LENGTH = 100;
/** Rows written per transaction. */
export const BATCH_SIZE = 500;
/** onProgress is called each time this many more rows have been written. */
export const PROGRESS_EVERY = 1000;

export type ImportResult = {
  imported: number;
  /** Sorted by line. */
  refused: Array<{ line: number; reason: string }>;
};

export type ImportProgress = { done: number; total: number };

export type CardImportErrorCode =
  'empty_file' | 'malformed_csv' | 'missing_column' | 'unknown_column' | 'duplicate_column' | 'write_failed';

/** A problem with the file as a whole: nothing was imported. Or ('write_failed') the database
 * failed midway: the batches before the failure are stored, the message says how many cards. */
export class CardImportError extends Error {
  readonly code: CardImportErrorCode;
  /** The column named by the message, for column errors. */
  readonly column: string | null;
  constructor(code: CardImportErrorCode, message: string, column: string | null = null) {
    super(message);
    this.name = 'CardImportError';
    this.code = code;
    this.column = column;
  }
}

/** A card waiting for its holder: its number, its letter's activation code, and what the employer
 * told of the holder. */
export type WaitingCard = {
  number: string;
  activationCode: string;
  firstname: string | null;
  lastname: string | null;
  email: string | null;
  phone: string | null;
  language: Locale | null;
  company: string | null;
  beneficiaryId: string | null;
};

type CardRow = WaitingCard & { line: number };

/** The `cards` row of a waiting card, without its id; the activation code is kept as a keyed hash only. */
export function waitingCardRow(secretKey: string, card: WaitingCard, createdAt: string) {
  return {
    number: card.number,
    user_id: null,
    activated_at: null,
    created_at: createdAt,
    activation_code_hash: activationCodeHash(secretKey, card.number, card.activationCode),
    holder_firstname: card.firstname,
    holder_lastname: card.lastname,
    holder_email: card.email,
    holder_phone: card.phone,
    holder_language: card.language,
    company: card.company,
    beneficiary_id: card.beneficiaryId,
  };
}

type Parsed = { record: string[]; line: number };

/** Splits the text into records, each with the line of the file it starts on. Blank lines (and
 * lines of empty fields, as spreadsheets write them) are skipped; a UTF-8 BOM is dropped; CRLF,
 * LF and CR line ends are all accepted, even mixed. */
function parseCsv(csvText: string): Parsed[] {
  const parsed: Parsed[] = [];
  // csv-parse's line count (info.lines) is the line a record ends on, and it counts the CR and the
  // LF of a CRLF inside a quoted field as two lines. Counting the line breaks in the fields gives
  // the line a record starts on, and the CRLFs seen so far correct the count of what follows.
  let extraLines = 0;
  try {
    parse(csvText, {
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      record_delimiter: ['\r\n', '\n', '\r'],
      on_record: (record: string[], info) => {
        const breaks = record.reduce((n, field) => n + (field.match(/[\r\n]/g)?.length ?? 0), 0);
        const line = info.lines - breaks - extraLines;
        extraLines += record.reduce((n, field) => n + (field.match(/\r\n/g)?.length ?? 0), 0);
        if (!record.every((field) => field.trim() === '')) parsed.push({ record, line });
        return null;
      },
    });
  } catch (error) {
    const csvError = error as CsvError;
    const line = typeof csvError.lines === 'number' ? `line ${csvError.lines - extraLines}: ` : '';
    throw new CardImportError(
      'malformed_csv',
      `${line}the file is not valid CSV (${csvError.message}); nothing imported`,
    );
  }
  return parsed;
}

/** Maps each known column to its index in the records; throws on an unknown, repeated or missing column. */
function readHeader(header: string[]): Map<Column, number> {
  const columns = new Map<Column, number>();
  header.forEach((raw, index) => {
    const name = raw.trim().toLowerCase();
    if (name === '')
      throw new CardImportError(
        'unknown_column',
        `column ${index + 1} of the header has no name; the columns are ${CARD_COLUMNS.join(', ')}`,
        '',
      );
    if (!CARD_COLUMNS.includes(name)) {
      const hint = name.includes(';')
        ? ' (the file seems to be separated by semicolons; columns must be separated by commas)'
        : '';
      throw new CardImportError(
        'unknown_column',
        `unknown column "${raw.trim()}" in the header${hint}; the columns are ${CARD_COLUMNS.join(', ')}`,
        raw.trim(),
      );
    }
    if (columns.has(name as Column))
      throw new CardImportError('duplicate_column', `the column "${name}" appears twice in the header`, name);
    columns.set(name as Column, index);
  });
  for (const required of REQUIRED_COLUMNS) {
    if (!columns.has(required))
      throw new CardImportError(
        'missing_column',
        `the header has no "${required}" column, which is required`,
        required,
      );
  }
  return columns;
}

const LOCALE_BY_KEY = new Map<string, Locale>(LOCALES.map((locale) => [locale.toLowerCase(), locale]));

/** "nl", "NL", "fr-LU" and "fr_lu" are all accepted and stored as the locale's own spelling. */
function toLocale(value: string): Locale | null {
  return LOCALE_BY_KEY.get(value.toLowerCase().replace('-', '_')) ?? null;
}

const LABELS: Record<Column, string> = {
  number: 'card number',
  activation_code: 'activation code',
  firstname: 'first name',
  lastname: 'last name',
  email: 'email address',
  phone: 'phone number',
  language: 'language',
  company: 'company',
  beneficiary_id: 'beneficiary id',
};

// Line breaks (from quoted fields) and other control characters have no place in these values.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Checks one record; gives the row to store, or every reason it is refused. */
function checkRecord(record: string[], line: number, columns: Map<Column, number>, width: number): CardRow | string[] {
  if (record.length !== width)
    return [`the row has ${record.length} field${record.length === 1 ? '' : 's'} where the header has ${width}`];
  const value = (column: Column) => {
    const index = columns.get(column);
    return index === undefined ? '' : record[index]!.trim();
  };
  const reasons: string[] = [];
  for (const column of columns.keys()) {
    if (CONTROL.test(value(column)))
      reasons.push(`the ${LABELS[column]} contains a line break or another control character`);
  }

  const number = value('number');
  if (number === '') reasons.push('the card number is missing');
  else if (!isCardNumber(number)) reasons.push('the card number must be 16 digits starting with 5065');
  const activationCode = value('activation_code');
  if (activationCode === '') reasons.push('the activation code is missing');
  else if (!isActivationCode(activationCode))
    reasons.push('the activation code must be 4 to 12 letters and digits (spaces and dashes ignored)');

  const text = (column: 'firstname' | 'lastname' | 'company' | 'beneficiary_id') => {
    const v = value(column);
    if ([...v].length > MAX_TEXT_LENGTH)
      reasons.push(`the ${LABELS[column]} is longer than ${MAX_TEXT_LENGTH} characters`);
    return v === '' ? null : v;
  };
  const firstname = text('firstname');
  const lastname = text('lastname');
  const company = text('company');
  const beneficiaryId = text('beneficiary_id');

  let email: string | null = null;
  if (value('email') !== '') {
    email = normaliseEmail(value('email'));
    if (!isEmail(email)) reasons.push(`the email address "${value('email')}" is not valid`);
  }
  let phone: string | null = null;
  if (value('phone') !== '') {
    phone = normalisePhone(value('phone'), 'BE');
    if (phone === null) reasons.push(`the phone number "${value('phone')}" is not valid`);
  }
  let language: Locale | null = null;
  if (value('language') !== '') {
    language = toLocale(value('language'));
    if (language === null) reasons.push(`the language "${value('language')}" is not one of ${LOCALES.join(', ')}`);
  }

  if (reasons.length > 0) return reasons;
  return {
    line,
    number: normaliseCardNumber(number),
    activationCode,
    firstname,
    lastname,
    email,
    phone,
    language,
    company,
    beneficiaryId,
  };
}

/**
 * Imports the cards of a CSV file. Rows are checked one by one; the good ones are stored (in
 * transactions of BATCH_SIZE rows), the bad ones reported. A card number seen earlier in the file,
 * or already in the database (including one another import stored meanwhile), is refused.
 * Throws CardImportError, before storing anything, when the file as a whole is unusable.
 */
export async function importCards(
  db: Db,
  secretKey: string,
  csvText: string,
  onProgress?: (progress: ImportProgress) => void,
): Promise<ImportResult> {
  const records = parseCsv(csvText);
  const header = records.shift();
  if (!header)
    throw new CardImportError(
      'empty_file',
      'the file is empty: it needs a header row naming the columns, then one row per card',
    );
  const columns = readHeader(header.record);

  const refused: ImportResult['refused'] = [];
  const good: CardRow[] = [];
  const firstLine = new Map<string, number>();
  for (const { record, line } of records) {
    const checked = checkRecord(record, line, columns, header.record.length);
    if (Array.isArray(checked)) {
      refused.push({ line, reason: checked.join('; ') });
      // A refused row still claims its number: a later row with it is a repeat, not a correction.
      const number = normaliseCardNumber(record[columns.get('number')!]?.trim() ?? '');
      if (record.length === header.record.length && isCardNumber(number) && !firstLine.has(number))
        firstLine.set(number, line);
      continue;
    }
    const earlier = firstLine.get(checked.number);
    if (earlier !== undefined) {
      refused.push({ line, reason: `the card number ${checked.number} already appears on line ${earlier}` });
      continue;
    }
    firstLine.set(checked.number, line);
    good.push(checked);
  }

  let imported = 0;
  let done = 0;
  for (let start = 0; start < good.length; start += BATCH_SIZE) {
    const batch = good.slice(start, start + BATCH_SIZE);
    const createdAt = nowIso();
    let stored: Set<string>;
    try {
      stored = await db.transaction().execute(async (trx) => {
        const inserted = await trx
          .insertInto('cards')
          .values(batch.map((row) => ({ id: crypto.randomUUID(), ...waitingCardRow(secretKey, row, createdAt) })))
          // A number already stored (before this import, or by a concurrent one) is left as it is.
          .onConflict((c) => c.column('number').doNothing())
          .returning('number')
          .execute();
        return new Set(inserted.map((row) => row.number));
      });
    } catch (error) {
      throw new CardImportError(
        'write_failed',
        `writing to the database failed after ${imported} card${imported === 1 ? ' was' : 's were'} imported ` +
          `(${(error as Error).message}); importing the file again imports the rest, the cards already imported being refused as such`,
      );
    }
    for (const row of batch) {
      if (stored.has(row.number)) imported += 1;
      else refused.push({ line: row.line, reason: `the card ${row.number} is already imported` });
    }
    const before = done;
    done += batch.length;
    if (onProgress && Math.floor(done / PROGRESS_EVERY) > Math.floor(before / PROGRESS_EVERY))
      onProgress({ done, total: good.length });
  }

  refused.sort((a, b) => a.line - b.line);
  return { imported, refused };
}
