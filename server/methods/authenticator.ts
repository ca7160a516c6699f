// The authenticator app (TOTP, RFC 6238): 6 digits, 30 s steps, one step either side accepted,
// never the same code twice and never one older than the last accepted.
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import { CODE_LENGTH } from '../../contract/rules.ts';
import { accountLabel } from '../identity/accounts.ts';
import { ApiError } from '../http/errors.ts';
import { decryptSecret, encryptSecret } from '../config/secrets.ts';
import { describeRow, type ChallengeMethod } from './method.ts';
import { issueRecoveryKeys, recoveryKey } from './recovery-key.ts';

/** The code's length, the contract's (the app's code entry reads the same). */
const DIGITS = CODE_LENGTH.totp;
const TOTP_CODE = new RegExp(`^\\d{${DIGITS}}$`);

export const authenticator: ChallengeMethod = {
  kind: 'totp',
  async verify({ config }, held, answer) {
    const totp = new TOTP({ secret: decryptSecret(config.secretKey, held.secret!), digits: DIGITS, period: 30 });
    const delta = TOTP_CODE.test(answer) ? totp.validate({ token: answer, window: 1 }) : null;
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
  // One authenticator per account: setting it up again (edit) replaces its secret, with new recovery keys.
  activation: {
    single: true,
    async setUp({ config, db }, userId) {
      const secret = new Secret({ size: 20 });
      const otpauth = new TOTP({
        issuer: 'Tessera',
        label: await accountLabel(db, userId),
        secret,
        digits: DIGITS,
        period: 30,
      }).toString();
      // The QR code is drawn here, so the browser needs no QR library.
      const qr = await QRCode.toString(otpauth, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' });
      return {
        secret: encryptSecret(config.secretKey, secret.base32),
        shown: { secret: secret.base32, otpauth_url: otpauth, qr_svg: qr },
      };
    },
    async bind(deps, { trx, userId, methods, first, replaced, target, step, addMethod }) {
      let id: number;
      if (replaced) {
        // The old secret stops working at once; the new one starts past the step that proved it.
        await trx
          .updateTable('mfa_methods')
          .set({ secret: target, last_step: step })
          .where('id', '=', replaced.id)
          .execute();
        id = replaced.id;
      } else {
        // Two set-ups raced: the first one counts.
        if (methods.some((m) => m.method === 'totp')) throw new ApiError('challenge_closed');
        id = await addMethod({ method: 'totp', secret: target, primary: first, lastStep: step });
      }
      if (!methods.some((m) => m.method === recoveryKey.kind)) await addMethod({ method: recoveryKey.kind });
      return { id, recoveryKeys: await issueRecoveryKeys(deps, trx, userId) };
    },
  },
};
