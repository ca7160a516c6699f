// What every way of proving something shares (as Ory Kratos' strategies do): a method may start a
// challenge (a code to send, or nothing when the answer is typed from an app, a sheet or a card),
// verifies an answer, and describes itself to its owner. The flows decide what a proof is for; the
// methods only say whether it holds and what a right answer uses up.
import type { MfaMethodSummary } from '../../contract/schemas.ts';
import type { AppContext } from '../context.ts';
import type { Db } from '../db/index.ts';
import type { MessagePurpose } from '../delivery/messages.ts';
import { maskTarget } from './codes.ts';

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
export type MethodRow = { id: number; method: string; target: string | null; is_primary: number };

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
  describe(row: MethodRow): MfaMethodSummary;
}

/** The summary every method shares: its id, kind, masked destination and whether it is primary. */
export function describeRow(row: MethodRow): MfaMethodSummary {
  return {
    id: row.id,
    method: row.method as MfaMethodSummary['method'],
    ...(row.target ? { target: maskTarget(row.target) } : {}),
    primary: row.is_primary === 1,
  };
}
