// /setup-mfa/totp: add an authenticator app — a projection of the authenticator set-up machine.
import { useSelector } from '@xstate/react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { ActorRefFrom } from 'xstate';
import type { authenticatorMachine } from '../../machines/authenticator.ts';
import { useRootActor } from '../shell/context.ts';
import { Button } from '../components/Button.tsx';
import { RecoveryKeys } from '../components/RecoveryKeys.tsx';
import { CodeEntryForm } from '../components/CodeEntry.tsx';
import { ErrorMessage } from '../components/Field.tsx';
import { useFlowChild } from '../components/FlowCard.tsx';
import { UserLayout } from '../components/UserLayout.tsx';
import { Loading } from '../components/Pending.tsx';
import { pathOf } from '../../machines/routes.ts';

type SetupRef = ActorRefFrom<typeof authenticatorMachine>;

export default function AuthenticatorPage() {
  const { t } = useTranslation();
  const root = useRootActor();
  const running = useSelector(root, (s) => s.children.authenticator !== undefined);
  const setupRef = useFlowChild('authenticator');
  return (
    <UserLayout>
      {setupRef ? <SetupTitle setup={setupRef} /> : <h1 className="text-2xl font-bold">{t('authenticator.title')}</h1>}
      {setupRef ? <Setup setup={setupRef} /> : running ? <Loading className="mt-4" /> : <AlreadyDone />}
    </UserLayout>
  );
}

/** The title says what the set-up was opened for: after the recovery screen's reset, the old
 * authenticator is replaced; with keys that screen made, they are shown (spec §4). */
function SetupTitle({ setup }: { setup: SetupRef }) {
  const { t } = useTranslation();
  const context = useSelector(setup, (s) =>
    s.context.regenerated ? 'regenerated' : s.context.reset ? 'reset' : undefined,
  );
  return <h1 className="text-2xl font-bold">{t('authenticator.title', { context })}</h1>;
}

function Setup({ setup }: { setup: SetupRef }) {
  const { t } = useTranslation();
  const state = useSelector(setup, (s) => s);
  const { secret, qrSvg, otpauthUrl, keys, error } = state.context;

  if (state.matches('failed')) {
    return (
      <div className="mt-5 space-y-3">
        <ErrorMessage error={error} />
        <Button variant="secondary" onClick={() => setup.send({ type: 'RETRY' })}>
          {t('authenticator.retry')}
        </Button>
      </div>
    );
  }
  if (state.matches('showingKeys') && keys)
    return <RecoveryKeys keys={keys} onSaved={() => setup.send({ type: 'CONTINUE' })} />;
  if (state.matches('scanning')) {
    return (
      <div className="mt-5 space-y-5">
        {state.context.reset && <p className="text-sm text-slate-800">{t('authenticator.resetNote')}</p>}
        <ol className="list-decimal space-y-1 pl-5 text-sm text-slate-800">
          <li>{t('authenticator.step1')}</li>
          <li>{t('authenticator.step2')}</li>
        </ol>
        {qrSvg && (
          <img
            src={`data:image/svg+xml;base64,${btoa(qrSvg)}`}
            alt={t('authenticator.qrAlt')}
            width={200}
            height={200}
            className="rounded border border-slate-200 bg-white p-2"
          />
        )}
        {/* On a phone, the app is on the same screen: a link opens it with the key. */}
        {otpauthUrl && (
          <a href={otpauthUrl} className="btn btn-secondary">
            {t('authenticator.open')}
          </a>
        )}
        <div className="space-y-2 text-sm">
          <p>{t('authenticator.orKey')}</p>
          <p className="flex flex-wrap items-center gap-3">
            {/* Grouped in fours to copy by eye; the apps take it with or without the spaces. */}
            <code
              data-testid="totp-secret"
              className="rounded bg-slate-100 px-2 py-1 font-mono tracking-wide"
              aria-label={t('authenticator.keyLabel')}
            >
              {secret ? groupsOfFour(secret) : ''}
            </code>
            <Button variant="secondary" size="sm" onClick={() => void navigator.clipboard?.writeText(secret ?? '')}>
              {t('authenticator.copyKey')}
            </Button>
          </p>
        </div>
        {state.children.codeEntry && (
          <CodeEntryForm entry={state.children.codeEntry} label="authenticator.codeLabel">
            {/* Nothing is set up until the app's first code proves it: leaving changes nothing. */}
            <Link to={pathOf('security', 'overview')} className="text-brand underline">
              {t('security.back')}
            </Link>
          </CodeEntryForm>
        )}
      </div>
    );
  }
  return <Loading className="mt-4" />;
}

/** Outside a set-up (a reload after the keys were shown): the keys are gone for good; say what to do. */
function AlreadyDone() {
  const { t } = useTranslation();
  return (
    <div className="mt-5 space-y-3">
      <p>{t('authenticator.done')}</p>
      <Link to={pathOf('security', 'overview')} className="text-brand underline">
        {t('security.back')}
      </Link>
    </div>
  );
}

/** ABCD EFGH …: easier to read and type by hand. */
const groupsOfFour = (key: string) => key.match(/.{1,4}/g)!.join(' ');
