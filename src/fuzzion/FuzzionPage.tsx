// /duplicated and /fuzzion-success: the merge of a duplicated account, a projection of its own flow
// (machines/fuzzion.ts), which this screen runs. The offer comes from the profile (session storage
// `fuzzion_payload`, as the spec names it); a finished merge is kept in this tab (`fuzzion_result`)
// so that Back and reload show it again instead of an offer already spent.
import { useActorRef, useSelector } from '@xstate/react';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { fromPromise } from 'xstate';
import { codeEntryMachineOf } from '../../machines/codeEntry.ts';
import { fuzzionMachine, type FuzzionResult } from '../../machines/fuzzion.ts';
import { pathOf } from '../../machines/routes.ts';
import type { FuzzionAnswer, FuzzionProof } from '../../contract/merge.ts';
import { proveFuzzionCard, proveFuzzionCode, proveFuzzionPassword, readFuzzionOffer, sendFuzzionCode } from '../api/flowCalls.ts';
import { browserHistory, useLocation } from '../app/history.ts';
import { Link } from '../app/links.tsx';
import { offerMemory, resultMemory, storedMerge } from './memory.ts';
import { Alert } from '../components/Alert.tsx';
import { Button } from '../components/Button.tsx';
import { CodeEntryForm, type CodeEntryRef } from '../components/CodeEntry.tsx';
import { ErrorMessage, TextField } from '../components/Field.tsx';
import { UserLayout } from '../components/UserLayout.tsx';
import { Card } from '../components/Card.tsx';

const SUCCESS_PATH = pathOf('fuzzion', 'success');
const OFFER_PATH = pathOf('fuzzion', 'offer');

type Ref = ReturnType<typeof useActorRef<typeof fuzzionMachine>>;

/** The flow, its calls bound; the code entry's check reads the offer and the intent from the flow
 * itself (`current`), since a code entry knows only its ticket. */
function flowOf(current: { payload: string | null; intent: () => 'merge' | 'decline' }) {
  return fuzzionMachine.provide({
    actors: {
      readOffer: fromPromise(({ input }) => readFuzzionOffer(input)),
      sendCode: fromPromise(({ input }) => sendFuzzionCode(input)),
      proveByPassword: fromPromise(({ input }) => proveFuzzionPassword(input)),
      proveByCard: fromPromise(({ input }) => proveFuzzionCard(input)),
      // The code entry's ticket is the code's challenge; the offer and the intent go with it.
      fuzzionCode: codeEntryMachineOf<FuzzionAnswer>().provide({
        actors: { check: fromPromise(({ input }) => proveFuzzionCode({ payload: current.payload ?? '', intent: current.intent(), challenge: input.ticket, code: input.code })) },
      }),
    },
    actions: {
      finished: (_, { result }) => {
        resultMemory.keep(result);
        offerMemory.keep(null);
        browserHistory.push(SUCCESS_PATH);
      },
    },
  });
}

export default function FuzzionPage() {
  const [input] = useState(storedMerge);
  const [holder] = useState(() => ({ flow: null as Ref | null }));
  const [logic] = useState(() => flowOf({ payload: input.payload, intent: () => holder.flow?.getSnapshot().context.intent ?? 'merge' }));
  const flow = useActorRef(logic, { input });
  holder.flow = flow;
  const { t } = useTranslation();
  const succeeded = useSelector(flow, (s) => s.matches('succeeded'));
  const { pathname } = useLocation();
  // The address follows the flow: the success screen shows only after a merge.
  useEffect(() => {
    if (succeeded && pathname !== SUCCESS_PATH) browserHistory.replace(SUCCESS_PATH);
    if (!succeeded && pathname === SUCCESS_PATH) browserHistory.replace(OFFER_PATH);
  }, [succeeded, pathname]);
  return (
    <UserLayout>
      <h1 className="text-2xl font-bold">{t(succeeded ? 'fuzzion.success.title' : 'fuzzion.title')}</h1>
      <div className="mt-4 max-w-xl">
        <Fuzzion flow={flow} />
      </div>
    </UserLayout>
  );
}

function Fuzzion({ flow }: { flow: Ref }) {
  const { t } = useTranslation();
  const snapshot = useSelector(flow, (s) => s);
  const { offer, error, result } = snapshot.context;
  const busy = snapshot.hasTag('busy');
  const backToProfile = <Link to={pathOf('profile', 'credentials')} className="text-brand-dark underline">{t('fuzzion.backToProfile')}</Link>;

  if (snapshot.matches('succeeded') && result) return <Success result={result} />;
  if (snapshot.matches('failed')) {
    return (
      <Card>
        <Alert tone="error">{t([`errors.${error}`, 'errors.merge_unavailable'])}</Alert>
        <p className="mt-4">{backToProfile}</p>
      </Card>
    );
  }
  if (!offer) return <p role="status">{t('common.loading')}</p>;
  if (snapshot.matches('cannotDecline')) {
    return (
      <Card>
        <Alert tone="error">{t('errors.decline_unavailable')}</Alert>
        <div className="mt-4 flex flex-wrap items-center gap-4">
          <Button variant="secondary" onClick={() => flow.send({ type: 'BACK' })}>{t('fuzzion.back')}</Button>
          {backToProfile}
        </div>
      </Card>
    );
  }
  if (snapshot.matches('offered')) {
    return (
      <Card>
        <p>{t('fuzzion.offer.text', { context: offer.kind, target: offer.target })}</p>
        <p className="mt-3 text-sm text-slate-700">{t('fuzzion.offer.merge')}</p>
        <div className="mt-5 flex flex-wrap gap-3">
          <Button onClick={() => flow.send({ type: 'ACCEPT' })}>{t('fuzzion.offer.accept')}</Button>
          <Button variant="secondary" onClick={() => flow.send({ type: 'DECLINE' })}>{t('fuzzion.offer.decline', { context: offer.kind })}</Button>
        </div>
        <p className="mt-4 text-sm">{backToProfile}</p>
      </Card>
    );
  }
  // Proving: which proof, then its form.
  return (
    <Card>
      <p>{t('fuzzion.prove.intro', { context: snapshot.context.intent, target: offer.target })}</p>
      {snapshot.context.moreNeeded && <Alert tone="info" className="mt-3">{t('fuzzion.prove.more')}</Alert>}
      <Proof flow={flow} busy={busy} />
      <div className="mt-5">
        <Button variant="secondary" disabled={busy} onClick={() => flow.send({ type: 'BACK' })}>{t('fuzzion.back')}</Button>
      </div>
      {error && snapshot.matches({ proving: 'choosing' }) && <div className="mt-3"><ErrorMessage error={{ code: error }} /></div>}
    </Card>
  );
}

function Proof({ flow, busy }: { flow: Ref; busy: boolean }) {
  const { t } = useTranslation();
  const snapshot = useSelector(flow, (s) => s);
  const { left, password, card, error, offer } = snapshot.context;
  const entry = snapshot.children.fuzzionCode as CodeEntryRef<FuzzionAnswer> | undefined;
  const choose = (proof: FuzzionProof) => flow.send({ type: 'CHOOSE', proof });

  if (snapshot.matches({ proving: 'code' }) && entry) {
    return (
      <div className="mt-4 space-y-3">
        <p className="text-sm">{t('fuzzion.code.sent', { target: offer?.target ?? '' })}</p>
        <CodeEntryForm entry={entry} onResend={() => flow.send({ type: 'RESEND' })} />
      </div>
    );
  }
  // The other account's password, or one of its cards' numbers: one field, then the server's word.
  const typed = snapshot.matches({ proving: 'password' }) || snapshot.matches({ proving: 'checkingPassword' }) ? 'password' as const
    : snapshot.matches({ proving: 'card' }) || snapshot.matches({ proving: 'checkingCard' }) ? 'card' as const : null;
  if (typed) {
    return (
      <form noValidate className="mt-4 space-y-4" onSubmit={(event) => { event.preventDefault(); flow.send({ type: 'SUBMIT' }); }}>
        <TextField label={t(`fuzzion.${typed}.label`)} autoComplete="off" value={typed === 'password' ? password : card}
          {...(typed === 'password' ? { type: 'password' } : { inputMode: 'numeric' as const })}
          onChange={(value) => flow.send({ type: typed === 'password' ? 'TYPE_PASSWORD' : 'TYPE_CARD', value })} error={error ? { code: error } : undefined} />
        <Button type="submit" loading={busy}>{t('fuzzion.confirm')}</Button>
      </form>
    );
  }
  return (
    <fieldset className="mt-4">
      <legend className="font-semibold">{t('fuzzion.prove.choose')}</legend>
      <div className="mt-3 flex flex-col gap-2 sm:flex-row sm:flex-wrap">
        {left.map((proof) => (
          <Button key={proof} variant="secondary" loading={busy && proof === 'code'} disabled={busy} onClick={() => choose(proof)}>
            {t(`fuzzion.proof.${proof}`, { context: offer?.kind })}
          </Button>
        ))}
      </div>
    </fieldset>
  );
}

function Success({ result }: { result: FuzzionResult }) {
  const { t } = useTranslation();
  const list = (items: Array<{ value: string; primary: boolean }>) => (
    <ul className="mt-1 space-y-1">
      {items.map((item) => <li key={item.value}>{item.value}{item.primary && <> <span className="text-sm text-slate-700">({t('fuzzion.success.primary')})</span></>}</li>)}
    </ul>
  );
  return (
    <Card>
      <Alert tone="success">{t(`fuzzion.success.${result.outcome}`)}</Alert>
      <h2 className="mt-4 font-semibold">{t('fuzzion.success.emails')}</h2>
      {list(result.emails)}
      <h2 className="mt-4 font-semibold">{t('fuzzion.success.phones')}</h2>
      {list(result.phones)}
      <p className="mt-5"><Link to={pathOf('profile', 'overview')} className="btn btn-primary">{t('fuzzion.success.toProfile')}</Link></p>
    </Card>
  );
}
