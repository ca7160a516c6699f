// /forgot-username and /forgot-username-response: a projection of the forgotten-username machine.
import { useSelector } from '@xstate/react';
import { useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { ActorRefFrom } from 'xstate';
import type { forgotUsernameMachine } from '../../machines/forgotUsername.ts';
import { Button } from '../components/Button.tsx';
import { TextField } from '../components/Field.tsx';
import { FlowCard, useFlowChild } from '../components/FlowCard.tsx';
import { Captcha, type CaptchaHandle } from '../components/captcha/Captcha.tsx';
import { LinkLine } from '../components/LinkLine.tsx';
import { Form } from '../components/Form.tsx';
import { NO_CAPTCHA_ELEMENT } from '../../machines/captchaAnswer.ts';
import { pathOf } from '../../machines/routes.ts';

type UsernameRef = ActorRefFrom<typeof forgotUsernameMachine>;

export default function ForgotUsernamePage() {
  const finder = useFlowChild('forgotUsername');
  return <FlowCard flow={finder}>{(flow) => <Finder finder={flow} />}</FlowCard>;
}

function Finder({ finder }: { finder: UsernameRef }) {
  const { t } = useTranslation();
  const state = useSelector(finder, (s) => s);
  const { kind, value, usernames, error } = state.context;
  const captcha = useRef<CaptchaHandle>(null);
  if (state.matches('answered') && usernames) {
    return (
      <>
        <h1 className="text-2xl font-bold">{t(usernames.length ? 'forgotUsername.found' : 'forgotUsername.none')}</h1>
        {usernames.length > 0 && (
          <ul className="mt-4 space-y-1 font-mono" data-testid="usernames">
            {usernames.map((u) => (
              <li key={u}>{u}</li>
            ))}
          </ul>
        )}
        {/* No account with this number: a card not yet activated is the likely reason. */}
        {usernames.length === 0 && (
          <p className="mt-3 text-sm text-slate-800">
            {t('forgotUsername.noneHelp')}{' '}
            <Link to={pathOf('onboarding', 'card')} className="font-medium text-brand underline">
              {t('forgotUsername.activate')}
            </Link>
          </p>
        )}
        <div className="mt-5 flex flex-wrap gap-4 text-sm">
          <Link to={pathOf('login', 'email')} className="text-brand underline">
            {t('forgotUsername.signIn')}
          </Link>
          <button type="button" onClick={() => finder.send({ type: 'AGAIN' })} className="text-brand underline">
            {t('forgotUsername.again')}
          </button>
        </div>
      </>
    );
  }
  return (
    <>
      <h1 className="text-2xl font-bold">{t('forgotUsername.title')}</h1>
      <fieldset className="mt-5">
        <legend className="text-sm font-medium">{t('forgotUsername.by')}</legend>
        <div className="mt-1 flex flex-wrap gap-4">
          {(['card', 'nationalRegister'] as const).map((k) => (
            <label key={k} className="flex items-center gap-2 text-sm">
              <input
                type="radio"
                name="kind"
                checked={kind === k}
                onChange={() => finder.send({ type: 'SET_KIND', kind: k })}
              />
              {t(`forgotUsername.kind.${k}`)}
            </label>
          ))}
        </div>
      </fieldset>
      <Form
        className="mt-4 space-y-4"
        onSubmit={() => finder.send({ type: 'SUBMIT', captcha: captcha.current?.take() ?? NO_CAPTCHA_ELEMENT })}
      >
        <TextField
          label={t(`forgotUsername.label.${kind}`)}
          inputMode="numeric"
          value={value}
          error={error}
          onChange={(v) => finder.send({ type: 'CHANGE', value: v })}
        />
        <Captcha ref={captcha} />
        <Button type="submit" full loading={state.matches('searching')}>
          {t('forgotUsername.search')}
        </Button>
      </Form>
      <LinkLine to={pathOf('login', 'email')}>{t('mfa.back')}</LinkLine>
    </>
  );
}
