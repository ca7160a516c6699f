// The form of every code screen: a projection of the shared code-entry machine
// (machines/codeEntry.ts). The field, the check's error, and — for a code that was sent — the
// countdown to its expiry and the button for a new one with the wait before it. Screens put their
// own title and text above it, and their own ways out beside the resend button (the entry sends the
// new code itself: the button waits while it goes). A whole code, typed, pasted (spaces and dashes
// dropped) or read from its SMS by the browser (WebOTP), goes by itself. Past an account's
// ceiling of wrong codes the server wants a solved CAPTCHA with each code: the widget then shows,
// at the level the server named, and its answer goes with the code. A code that went another way
// than the one chosen (WhatsApp, then SMS) is said to have, once the entry hears of it.
import { useSelector } from '@xstate/react';
import { useCallback, useEffect, useId, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { ActorRefFrom } from 'xstate';
import type { codeEntryMachineOf } from '../../machines/codeEntry.ts';
import type { ProblemCode } from '../../machines/failures.ts';
import { useCeilingCaptcha } from './captcha/useCeilingCaptcha.tsx';
import { minutesSeconds, useNow } from './useNow.ts';
import { Button } from './Button.tsx';
import { TextField } from './Field.tsx';
import { Form } from './Form.tsx';

/** A flow's running code entry, whose check answers `TResult` and whose code is sent by `TRequest`. */
export type CodeEntryRef<TResult, TRequest = unknown> = ActorRefFrom<
  ReturnType<typeof codeEntryMachineOf<TResult, TRequest>>
>;

export function CodeEntryForm<TResult, TRequest>({
  entry,
  label,
  letters = false,
  offerTrust = false,
  wrongAs,
  onResend,
  children,
}: {
  entry: CodeEntryRef<TResult, TRequest>;
  /** The field's label; a one-time code's by default. */
  label?: string;
  /** Recovery keys have letters; other codes are digits. */
  letters?: boolean;
  /** A sign-in's second factor may trust the device. */
  offerTrust?: boolean;
  /** What a wrong answer is called where it is not a code (a card number): its error code. */
  wrongAs?: ProblemCode;
  /** What asks for a new code (a screen with a CAPTCHA sends the entry its answer along). */
  onResend?: () => void;
  /** The screen's ways out, beside the resend button. */
  children?: ReactNode;
}) {
  const { t } = useTranslation();
  const trustId = useId();
  const { code, error, remember, sent, captchaLevel, resend, resent, delivery, followsDelivery } = useSelector(
    entry,
    (s) => s.context,
  );
  // Loaded only once a server asks for it: most code screens never show it.
  const puzzle = useCeilingCaptcha(captchaLevel);
  const checking = useSelector(entry, (s) => s.matches({ entering: { input: 'checking' } }));
  const expired = useSelector(entry, (s) => s.matches({ entering: { expiry: 'expired' } }));
  const canResend = useSelector(entry, (s) => s.matches({ entering: { resend: 'ready' } }));
  const sending = useSelector(entry, (s) => s.matches({ entering: { resend: 'sending' } }));
  const now = useNow(sent !== null);
  const type = useCallback((value: string) => entry.send({ type: 'TYPE', value }), [entry]);
  // Only for a code sent to a number (its masked target is no address): only an SMS brings one.
  useSmsCode(sent !== null && !letters && !sent.target?.includes('@'), type);
  // A new code sent from here: back to the emptied field for it (the resend button waits again).
  const field = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (resent) field.current?.querySelector('input')?.focus();
  }, [resent, sent]);
  return (
    <>
      <Form className="mt-5 space-y-4" onSubmit={() => entry.send({ type: 'SUBMIT', ...puzzle.answer() })}>
        {/* Before the field: a whole code goes by itself, so the choice is made first. */}
        {offerTrust && (
          <div className="flex items-center gap-2">
            <input
              id={trustId}
              type="checkbox"
              checked={remember}
              onChange={() => entry.send({ type: 'TOGGLE_REMEMBER' })}
              className="h-4 w-4"
            />
            <label htmlFor={trustId} className="text-sm">
              {t('mfa.code.trust')}
            </label>
          </div>
        )}
        {/* A one-time code where one was sent (the browser offers the SMS or mail it came in) and for an
            authenticator's (a password manager may hold it); not for a recovery key or a card number. */}
        <div ref={field}>
          <TextField
            label={t(label ?? 'mfa.code.label')}
            inputMode={letters ? 'text' : 'numeric'}
            autoComplete={sent || (!letters && !label) ? 'one-time-code' : 'off'}
            code
            first
            value={grouped(code, letters)}
            error={error && wrongAs && error.code === 'invalid_code' ? { code: wrongAs } : error}
            // A refused code is typed over; a code confirmed too soon is typed on.
            selectOnError={error?.code !== 'code_incomplete'}
            onChange={type}
            // A code is pasted whole: it takes the field's place rather than joining what is there.
            onPaste={(event) => {
              event.preventDefault();
              type(event.clipboardData.getData('text'));
            }}
          />
        </div>
        {/* Heard once it is there: the press that asked for it said nothing else. */}
        <p role="status" className="text-sm text-green-800 empty:hidden">
          {resent && t('mfa.code.resent', { context: sent?.target ? 'target' : undefined, target: sent?.target })}
        </p>
        {/* There from the start, so that the way the code went instead is heard when it comes; only
            where the entry asks (never on a forgotten password's screen). */}
        {sent && followsDelivery && (
          <p className="text-sm text-slate-800 empty:hidden" aria-live="polite" data-testid="code-delivery">
            {delivery?.fell_back_from &&
              t('codeDelivery.fellBack', { context: `${delivery.fell_back_from}_${delivery.channel}` })}
          </p>
        )}
        {sent && (
          <p className="text-sm text-slate-700" aria-live="polite">
            {expired ? t('mfa.code.expired') : t('mfa.code.expiresIn', { time: minutesSeconds(sent.expiresAt - now) })}
          </p>
        )}
        {puzzle.widget}
        <Button type="submit" full loading={checking}>
          {t('mfa.code.confirm')}
        </Button>
      </Form>
      <div className="mt-4 flex flex-wrap items-center justify-between gap-3 text-sm">
        {resend != null && sent?.resendAt != null && (
          <Button
            variant="secondary"
            size="sm"
            loading={sending}
            disabled={!canResend}
            onClick={onResend ?? (() => entry.send({ type: 'RESEND' }))}
          >
            {canResend || sending
              ? t('mfa.code.resend')
              : t('mfa.code.resendIn', { time: minutesSeconds(sent.resendAt - now) })}
          </Button>
        )}
        {children}
      </div>
    </>
  );
}

/** The code of an SMS, where the browser reads it for the page (WebOTP: the SMS's last line binds it
 * to this site), typed in as the person would. Listening stops when the screen goes. */
function useSmsCode(listen: boolean, take: (code: string) => void) {
  useEffect(() => {
    if (!listen || !('OTPCredential' in window)) return;
    const stop = new AbortController();
    // WebOTP's request and answer, which the DOM's types do not know yet.
    const request = { otp: { transport: ['sms'] }, signal: stop.signal } as CredentialRequestOptions;
    navigator.credentials
      .get(request)
      .then((credential) => {
        const code = (credential as { code?: unknown } | null)?.code;
        if (typeof code === 'string' && !stop.signal.aborted) take(code);
      })
      // Stopped, refused or not to be had: the person types the code.
      .catch(() => {});
    return () => stop.abort();
  }, [listen, take]);
}

/** A code shown in groups (1234 5678, 123 456, ABCDE FGHIJ), easier to compare with the message it
 * came in; the machine keeps it without spaces, and a pasted code with any spacing is taken. */
export function grouped(code: string, letters: boolean): string {
  const size = letters ? 5 : code.length <= 6 ? 3 : 4;
  return code.match(new RegExp(`.{1,${size}}`, 'g'))?.join(' ') ?? '';
}
