// What the code screens show of their two timers (the machines own them; this only displays): the
// countdown to the code's expiry, and the button for a new code with the wait before it.
import { useTranslation } from 'react-i18next';
import { minutesSeconds } from '../app/useNow.ts';
import { Button } from './Button.tsx';

export function ExpiryNotice({ expired, expiresAt, now }: { expired: boolean; expiresAt: number; now: number }) {
  const { t } = useTranslation();
  return (
    <p className="text-sm text-slate-700" aria-live="polite">
      {expired ? t('mfa.code.expired') : t('mfa.code.expiresIn', { time: minutesSeconds(expiresAt - now) })}
    </p>
  );
}

export function ResendButton({ ready, resendAt, now, busy = false, onResend }: {
  ready: boolean; resendAt: number | null; now: number; busy?: boolean; onResend: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Button variant="secondary" size="sm" disabled={!ready || busy} onClick={onResend}>
      {ready || resendAt === null ? t('mfa.code.resend') : t('mfa.code.resendIn', { time: minutesSeconds(resendAt - now) })}
    </Button>
  );
}
