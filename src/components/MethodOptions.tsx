// What every screen that proves a second factor shares: the list of methods to choose from (each
// by its kind and masked destination; a phone's by SMS, call or WhatsApp; a passkey by the name its
// owner gave it, or who keeps it), and how the code form
// reads each method's answer (a recovery key has letters, a card's number is not a code). The sign-in's
// and step-up's code screen (src/mfa) and the merge's proof of the other account (src/fuzzion) use them.
import type { ComponentProps } from 'react';
import { useTranslation } from 'react-i18next';
import type { MfaMethodSummary } from '../../contract/schemas.ts';
import type { CodeEntryForm } from './CodeEntry.tsx';
import { Spinner } from './Button.tsx';

export type PhoneChannel = 'sms' | 'call' | 'whatsapp';

/** The methods as buttons, one per way a code can go. While the chosen one's code goes (`busy`),
 * none can be pressed, and that one says it waits. */
export function MethodOptions({
  methods,
  disabled = false,
  busy = null,
  onSelect,
  className = 'mt-5',
}: {
  methods: readonly MfaMethodSummary[];
  disabled?: boolean;
  busy?: { id: number; channel: string | null } | null;
  onSelect: (id: number, channel?: PhoneChannel) => void;
  className?: string;
}) {
  const { t } = useTranslation();
  const option = (method: MfaMethodSummary, channel?: PhoneChannel) => {
    const waiting = busy !== null && busy.id === method.id && busy.channel === (channel ?? null);
    return (
      <li key={`${method.id}-${channel ?? ''}`}>
        <button
          type="button"
          disabled={disabled}
          // While a code goes, the options refuse presses but keep focus (it would fall to the page).
          aria-disabled={busy !== null || undefined}
          aria-busy={waiting || undefined}
          onClick={() => busy === null && onSelect(method.id, channel)}
          className="w-full rounded border border-slate-300 px-4 py-3 text-left hover:border-brand hover:bg-brand-light disabled:opacity-70 aria-disabled:opacity-70"
        >
          {waiting && <Spinner />}
          {method.method === 'passkey'
            ? t('mfa.choose.passkey', passkeyNaming(method))
            : t(`mfa.choose.${channel ?? method.method}`, { target: method.target ?? '', ...cardEndings(method) })}
        </button>
      </li>
    );
  };
  return (
    <ul className={`${className} space-y-2`}>
      {methods.flatMap((m) =>
        m.method === 'sms' ? [option(m, 'sms'), option(m, 'call'), option(m, 'whatsapp')] : [option(m)],
      )}
    </ul>
  );
}

/** Which card a card method takes: the endings of the account's cards, for a string's `ending`
 * context (its plural says one card or one of several). */
export function cardEndings(method: MfaMethodSummary) {
  const endings = method.card_endings ?? [];
  return endings.length ? { context: 'ending', count: endings.length, endings } : {};
}

/** What names a passkey, for a string's `named` context: the name its owner gave it, else who keeps
 * it; neither (an unknown authenticator, never named) leaves the plain string ("Passkey"). */
export function passkeyNaming(method: MfaMethodSummary) {
  const name = method.name ?? method.provider;
  return name ? { context: 'named', name } : {};
}

/** How the code form reads a method's answer: letters for a recovery key, a card's number named as such. */
export function answerFormOf(
  method: MfaMethodSummary['method'],
): Pick<ComponentProps<typeof CodeEntryForm>, 'letters' | 'wrongAs' | 'label'> {
  return {
    letters: method === 'totpRecovery',
    wrongAs: method === 'card' ? 'card_not_matching' : undefined,
    label: method === 'totpRecovery' ? 'mfa.code.recoveryLabel' : method === 'card' ? 'mfa.code.cardLabel' : undefined,
  };
}
