// /undo-change#<token>: "this wasn't me", from the notice of a change to the account's emails or
// phones. A projection of its own flow (machines/undoChange.ts), which this screen runs: the token
// is taken from the address's hash once, and the hash is dropped from the history entry.
import { useActorRef, useSelector } from '@xstate/react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { fromPromise } from 'xstate';
import { undoChangeMachine } from '../../machines/undoChange.ts';
import { pathOf } from '../../machines/routes.ts';
import { undoChange } from '../api/flowCalls.ts';
import { takeHash } from '../shell/hash.ts';
import { Link } from 'react-router';
import { Alert } from '../components/Alert.tsx';
import { Button } from '../components/Button.tsx';
import { FlowCard } from '../components/FlowCard.tsx';

const UNDO = undoChangeMachine.provide({ actors: { undo: fromPromise(({ input }) => undoChange(input)) } });

const takeToken = () => takeHash() || null;

export default function UndoChangePage() {
  const [token] = useState(takeToken);
  const flow = useActorRef(UNDO, { input: { token } });
  return <FlowCard flow={flow}>{() => <Undo flow={flow} />}</FlowCard>;
}

function Undo({ flow }: { flow: ReturnType<typeof useActorRef<typeof UNDO>> }) {
  const { t } = useTranslation();
  const state = useSelector(flow, (s) => s.value);
  const error = useSelector(flow, (s) => s.context.error);
  if (state === 'done') {
    return (
      <>
        <h1 className="text-2xl font-bold">{t('undoChange.done.title')}</h1>
        <Alert tone="success" className="mt-4">
          {t('undoChange.done.text')}
        </Alert>
        <Link to={pathOf('forgotPassword', 'email')} className="btn btn-primary mt-4">
          {t('undoChange.done.newPassword')}
        </Link>
      </>
    );
  }
  if (state === 'failed') {
    return (
      <>
        <h1 className="text-2xl font-bold">{t('undoChange.title')}</h1>
        <Alert tone="error" className="mt-4">
          {t([`errors.${error}`, 'errors.internal_error'])}
        </Alert>
        <p className="mt-3 text-sm">{t('undoChange.failedHint')}</p>
        <Link to={pathOf('forgotPassword', 'email')} className="mt-2 inline-block text-brand-dark underline">
          {t('undoChange.done.newPassword')}
        </Link>
      </>
    );
  }
  return (
    <>
      <h1 className="text-2xl font-bold">{t('undoChange.title')}</h1>
      <p className="mt-3">{t('undoChange.intro')}</p>
      <ul className="mt-3 list-disc space-y-1 pl-5 text-sm">
        <li>{t('undoChange.effect.restore')}</li>
        <li>{t('undoChange.effect.sessions')}</li>
        <li>{t('undoChange.effect.password')}</li>
      </ul>
      <Button
        className="mt-5"
        variant="danger"
        loading={state === 'undoing'}
        onClick={() => flow.send({ type: 'UNDO' })}
      >
        {t('undoChange.confirm')}
      </Button>
    </>
  );
}
