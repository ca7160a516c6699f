// The methods a challenge can be opened on, by kind: the challenge store dispatches to them.
import type { MfaMethodSummary } from '../../contract/schemas.ts';
import { authenticator } from './authenticator.ts';
import { cardNumber } from './card-number.ts';
import { describeRow, type Activation, type ChallengeMethod, type MethodRow } from './method.ts';
import { callCode, emailCode, smsCode, whatsappCode } from './one-time-code.ts';
import { passkey } from './passkey.ts';
import { recoveryKey } from './recovery-key.ts';

export const METHODS: Readonly<Record<string, ChallengeMethod>> = Object.fromEntries(
  [emailCode, smsCode, callCode, whatsappCode, authenticator, recoveryKey, cardNumber, passkey].map((method) => [
    method.kind,
    method,
  ]),
);

/** The method of a kind; an unknown kind is refused like a wrong answer, never trusted. */
export function methodOfKind(kind: string): ChallengeMethod {
  return METHODS[kind] ?? UNKNOWN;
}

/** Whether Tessera sends this kind's codes (the others are typed from an app, a sheet of keys or a card). */
export function sendsCodes(kind: string): boolean {
  return METHODS[kind]?.start !== undefined;
}

/** How a kind is added to an account; undefined for a kind that cannot be. */
export function activationOf(kind: string): Activation | undefined {
  return Object.hasOwn(METHODS, kind) ? METHODS[kind]!.activation : undefined;
}

export function describeMethod(row: MethodRow): MfaMethodSummary {
  return (METHODS[row.method]?.describe ?? describeRow)(row);
}

const UNKNOWN: ChallengeMethod = { kind: 'unknown', verify: async () => ({ right: false }), describe: describeRow };
