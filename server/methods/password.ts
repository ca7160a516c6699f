// The password: Argon2id. An account without one (or no account at all) is checked against a dummy
// hash, so neither the answer nor its time tells them apart.
import { LOCKED_PASSWORD, type PasswordHasher } from '../passwords/hashing.ts';
import type { ProofMethod } from './method.ts';

export const password: ProofMethod<{ passwordHash: string | null }, { hasher: PasswordHasher }> = {
  kind: 'password',
  async verify({ hasher }, held, answer) {
    const right =
      held.passwordHash && held.passwordHash !== LOCKED_PASSWORD
        ? await hasher.verify(held.passwordHash, answer)
        : await hasher.verifyDummy(answer);
    return { right };
  },
};
