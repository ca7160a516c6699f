// How a code should reach a phone: SMS, voice call or WhatsApp (forgotten password, onboarding).
import { useTranslation } from 'react-i18next';

export type PhoneChannel = 'sms' | 'call' | 'whatsapp';

export function ChannelChoice({
  channel,
  onChange,
}: {
  channel: PhoneChannel;
  onChange: (channel: PhoneChannel) => void;
}) {
  const { t } = useTranslation();
  return (
    <fieldset>
      <legend className="text-sm font-medium">{t('forgotPassword.channel')}</legend>
      <div className="mt-1 flex flex-wrap gap-4">
        {(['sms', 'call', 'whatsapp'] as const).map((c) => (
          <label key={c} className="flex items-center gap-2 text-sm">
            <input type="radio" name="channel" checked={channel === c} onChange={() => onChange(c)} />
            {t(`forgotPassword.channels.${c}`)}
          </label>
        ))}
      </div>
    </fieldset>
  );
}
