// What every way of proving something shares (as Ory Kratos' strategies do): a method may start a
// challenge (a code to send, or nothing when the answer is typed from an app, a sheet or a card),
// verifies an answer, and describes itself to its owner. The flows decide what a proof is for; the
// methods only say whether it holds and what a right answer uses up. A method that can be added to
// an account carries its own activation (as Logto's verification records and Kratos' strategies
// carry their binding): server/mfa/activation.ts runs the shared steps around it.
import type { Variant } from '../../contract/constants.ts';
import type { ErrorCode } from '../../contract/errors.ts';
import type { MfaMethodSummary, PasskeyOptions } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/index.ts';
import type { MessagePurpose } from '../delivery/messages.ts';
import type { ContactKind } from '../identity/accounts.ts';
import { maskTarget } from './codes.ts';
import type { NewPasskey } from './passkey.ts';

/** The answer's verdict. A right answer may use something up (an authenticator's time step, a
 * recovery key): `spend` does it inside the transaction that closes the challenge, and says false
 * when a concurrent answer spent it first, so of two racing answers exactly one succeeds. */
export type Verdict = {
  right: boolean;
  spend?: (trx: Db) => Promise<boolean>;
  /** The authenticator time step accepted (a new authenticator starts from it). */
  step?: number;
  /** What the owner learns after a success (the recovery keys left). */
  after?: (db: Db) => Promise<{ recoveryKeysLeft?: number }>;
  /** How the factor was given, where OIDC's amr names it (RFC 8176: 'hwk', 'swk' for a passkey). */
  amr?: string;
  /** What a new method's first answer proved, for its binding to write (a passkey's credential). */
  credential?: NewPasskey;
};

/** The one interface of every method; `Held` is what the answer is checked against. */
export interface ProofMethod<Held, Deps = MethodDeps> {
  readonly kind: string;
  verify(deps: Deps, held: Held, answer: string): Promise<Verdict>;
}

export type MethodDeps = Pick<AppContext, 'config' | 'db'>;

/** What a challenge holds for its method to check an answer against. */
export type HeldChallenge = {
  id: string;
  /** Null for a challenge of a flow that has no user yet (onboarding). */
  userId: string | null;
  codeHash: string | null;
  /** The method answered (null while a new one is being set up). */
  methodId: number | null;
  /** An authenticator's sealed secret: the method's, or a new one's waiting in the challenge. */
  secret: string | null;
  lastStep: number | null;
};

/** A second-factor method row, as its owner sees it. */
export type MethodRow = {
  id: number;
  method: string;
  target: string | null;
  is_primary: number;
  /** For a card method: the last four digits of the account's activated cards. */
  card_endings?: string[];
  /** For a passkey: what its owner sees of it. */
  passkey?: { name: string | null; aaguid: string; created_at: string; last_used_at: string | null; synced: boolean };
};

export type CodeToSend = {
  challengeId: string;
  target: string;
  language: string;
  purpose: MessagePurpose;
  /** The channel asked for: a phone method may take its code by SMS, voice call or WhatsApp. */
  channel?: string;
};

/** A method a challenge can be opened on (every one but the password). */
export interface ChallengeMethod extends ProofMethod<HeldChallenge> {
  /** Only for methods whose codes Tessera sends: makes the code, queues its message in the
   * challenge's transaction (so a crash loses neither alone) and returns its keyed hash. */
  start?(deps: Pick<AppContext, 'config' | 'outbox'>, trx: Db, code: CodeToSend): Promise<{ codeHash: string }>;
  /** Only for methods the browser answers by itself (a passkey): the question it is asked, and its
   * keyed hash, which the challenge keeps as a sent code's. `methodId` null: a new method's set-up. */
  ask?(
    deps: MethodDeps,
    held: { challengeId: string; userId: string; methodId: number | null },
  ): Promise<{ codeHash: string; options: PasskeyOptions }>;
  /** How long its challenge may be answered, when not as long as a code's. */
  readonly ttlSeconds?: number;
  /** The error a wrong answer gets, when not a wrong code's. */
  readonly wrong?: ErrorCode;
  describe(row: MethodRow): MfaMethodSummary;
  /** How the method is added to an account; a method without one cannot be (recovery keys, cards). */
  readonly activation?: Activation;
}

/** Adding a method to an account: what differs from one method to another. The shared steps (the
 * step-up, the challenge, its first code, the merge offer, the event) are server/mfa/activation.ts'. */
export interface Activation {
  /** For a method that proves a destination (an address, a phone number): how the typed one is
   * checked. The destination is one of the account's contacts: it joins them once proven, and its
   * use by another account leads to the merge offer. Absent: the method has no destination. */
  readonly destination?: Destination;
  /** At most one per account (the authenticator): an edit that names none replaces the user's,
   * and adding another while one exists is nothing to do. */
  readonly single?: boolean;
  /** Made before the challenge opens (the authenticator's new secret): the challenge holds the
   * secret, sealed, until the first code proves it; the answer shows what the user needs of it. */
  setUp?(deps: MethodDeps, userId: string): Promise<SetUp>;
  /** Writes the proven method, in the transaction that holds the account's lock. */
  bind(deps: Pick<AppContext, 'config' | 'outbox'>, binding: Binding): Promise<Bound>;
}

/** A destination a method proves, and the errors that name it. */
export type Destination = {
  readonly contact: ContactKind;
  /** The destination as stored (trimmed and lower-cased, E.164), or null when it is not one. */
  normalise(raw: string, variant: Variant): string | null;
  /** The error for a destination that is not one (invalid_email, invalid_phone). */
  readonly invalid: ErrorCode;
  /** The error for a destination another account holds (email_in_use, phone_in_use). */
  readonly inUse: ErrorCode;
};

export type SetUp = {
  /** Sealed: the challenge holds it in place of a destination. */
  secret: string;
  /** What the activation's answer shows beside its challenge. */
  shown: { secret?: string; otpauth_url?: string; qr_svg?: string };
};

/** What a binding works with: the account's methods as the change finds them, what the first code
 * proved, and the account's method writes (given by the caller, which owns the account's rules). */
export type Binding = {
  trx: Db;
  userId: string;
  methods: MethodRow[];
  /** The new method is the account's first factor: it becomes primary. */
  first: boolean;
  /** The user's method of the same kind this activation replaces. */
  replaced: MethodRow | undefined;
  /** The proven destination, or the sealed secret of a new authenticator. */
  target: string | null;
  /** The authenticator time step the first code used (the new method starts past it). */
  step: number | null;
  /** What the first answer proved of a new passkey. */
  credential: NewPasskey | null;
  addMethod(input: {
    method: string;
    target?: string | null;
    secret?: string | null;
    primary?: boolean;
    lastStep?: number | null;
  }): Promise<number>;
  setPrimary(id: number): Promise<void>;
};

/** The method the activation leaves, and the recovery keys it issued, to be shown once. */
export type Bound = { id: number; recoveryKeys?: string[] };

/** The summary every method shares: its id, kind, masked destination and whether it is primary. */
export function describeRow(row: MethodRow): MfaMethodSummary {
  return {
    id: row.id,
    method: row.method as MfaMethodSummary['method'],
    ...(row.target ? { target: maskTarget(row.target) } : {}),
    primary: row.is_primary === 1,
  };
}
