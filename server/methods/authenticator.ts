// The authenticator app (TOTP, RFC 6238): 6 digits, 30 s steps, one step either side accepted,
// never the same code twice and never one older than the last accepted.
import { TOTP } from 'otpauth';
import { decryptSecret } from './secrets.ts';
import { describeRow, type ChallengeMethod } from './method.ts';

export const authenticator: ChallengeMethod = {
  kind: 'totp',
  async verify({ config }, held, answer) {
    const totp = new TOTP({ secret: decryptSecret(config.secretKey, held.secret!), digits: 6, period: 30 });
    const delta = /^\d{6}$/.test(answer) ? totp.validate({ token: answer, window: 1 }) : null;
    if (delta === null) return { right: false };
    const step = Math.floor(Date.now() / 30_000) + delta;
    // A method being set up has no last step yet: the activation starts it from this one.
    if (held.methodId === null) return { right: true, step };
    if (held.lastStep !== null && step <= held.lastStep) return { right: false };
    return {
      right: true,
      step,
      // Replay protection that holds under races: the step moves forward only if nobody moved it first.
      spend: async (trx) => {
        const stepped = await trx
          .updateTable('mfa_methods')
          .set({ last_step: step })
          .where('id', '=', held.methodId!)
          .where((eb) => eb.or([eb('last_step', 'is', null), eb('last_step', '<', step)]))
          .executeTakeFirst();
        return Number(stepped.numUpdatedRows) === 1;
      },
    };
  },
  describe: describeRow,
};
