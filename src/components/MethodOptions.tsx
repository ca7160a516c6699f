// What every screen that proves a second factor shares: the list of methods to choose from (each
// by its kind and masked destination; a phone's by SMS, call or WhatsApp), and how the code form
// reads each method's answer (a recovery key has letters, a card's number is not a code). The sign-in's
// and step-up's code screen (src/mfa) and the merge's proof of the other account (src/fuzzion) use them.
import type { ComponentProps } from 'react';
import { useTranslation } from 'react-i18next';
import type { MfaMethodSummary } from '../../contract/schemas.ts';
import type { CodeEntryForm } from './CodeEntry.tsx';

export type PhoneChannel = 'sms' | 'call' | 'whatsapp';

/** The methods as buttons, one per way a code can go. */
export function MethodOptions({
  methods,
  disabled = false,
  onSelect,
  className = 'mt-5',
}: {
  methods: readonly MfaMethodSummary[];
  disabled?: boolean;
  onSelect: (id: number, channel?: PhoneChannel) => void;
  className?: string;
}) {
  const { t } = useTranslation();
  const option = (method: MfaMethodSummary, channel?: PhoneChannel) => (
    <li key={`${method.id}-${channel ?? ''}`}>
      <button
        type="button"
        disabled={disabled}
        onClick={() => onSelect(method.id, channel)}
        className="w-full rounded border border-slate-300 px-4 py-3 text-left hover:border-brand hover:bg-brand-light disabled:opacity-70"
      >
        {t(`mfa.choose.${channel ?? method.method}`, { target: method.target ?? '' })}
      </button>
    </li>
  );
  return (
    <ul className={`${className} space-y-2`}>
      {methods.flatMap((m) =>
        m.method === 'sms' ? [option(m, 'sms'), option(m, 'call'), option(m, 'whatsapp')] : [option(m)],
      )}
    </ul>
  );
}

/** How the code form reads a method's answer: letters for a recovery key, a card's number named as such. */
export function answerFormOf(
  method: MfaMethodSummary['method'],
): Pick<ComponentProps<typeof CodeEntryForm>, 'letters' | 'wrongAs' | 'label'> {
  return {
    letters: method === 'totpRecovery',
    wrongAs: method === 'card' ? 'invalid_card_number' : undefined,
    label: method === 'totpRecovery' ? 'mfa.code.recoveryLabel' : method === 'card' ? 'mfa.code.cardLabel' : undefined,
  };
}
