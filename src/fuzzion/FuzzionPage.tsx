// /duplicated and /fuzzion-success: the merge of a duplicated account, a projection of its flow
// (machines/fuzzion.ts), which the root runs on these screens. The offer comes from the code that
// proved the address (session storage `fuzzion_payload`, as the spec names it); a finished merge is
// kept in this tab (`fuzzion_result`) so that Back and reload show it again instead of an offer
// already spent (src/fuzzion/bindings.ts).
// The other account is proven with its own second factors, shown as the sign-in's chooser shows
// them (src/components/MethodOptions.tsx), their answer typed in the shared code form; a passkey is
// used from the choice itself, the browser asking for it, as at the second factor (src/mfa).
import { useSelector } from '@xstate/react';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { ActorRefFrom } from 'xstate';
import type { fuzzionMachine, FuzzionResend, FuzzionResult } from '../../machines/fuzzion.ts';
import { CODED } from '../../machines/mfa.ts';
import { pathOf } from '../../machines/routes.ts';
import type { FuzzionAnswer } from '../../contract/fuzzion.ts';
import { formatPhone } from '../../contract/rules.ts';
import { Link } from 'react-router';
import { Alert } from '../components/Alert.tsx';
import { Button } from '../components/Button.tsx';
import { CodeEntryForm, type CodeEntryRef } from '../components/CodeEntry.tsx';
import { useCeilingCaptcha } from '../components/captcha/useCeilingCaptcha.tsx';
import { ErrorMessage, TextField } from '../components/Field.tsx';
import { useFlowChild } from '../components/FlowCard.tsx';
import { UserLayout } from '../components/UserLayout.tsx';
import { Card } from '../components/Card.tsx';
import { answerFormOf, MethodOptions } from '../components/MethodOptions.tsx';

type Ref = ActorRefFrom<typeof fuzzionMachine>;

export default function FuzzionPage() {
  const { t } = useTranslation();
  const flow = useFlowChild('fuzzion');
  const succeeded = useSelector(flow, (s) => s?.matches('succeeded') ?? false);
  return (
    <UserLayout>
      <h1 className="text-2xl font-bold">{t(succeeded ? 'fuzzion.success.title' : 'fuzzion.title')}</h1>
      <div className="mt-4 max-w-xl">{flow ? <Fuzzion flow={flow} /> : <p role="status">{t('common.loading')}</p>}</div>
    </UserLayout>
  );
}

function Fuzzion({ flow }: { flow: Ref }) {
  const { t } = useTranslation();
  const snapshot = useSelector(flow, (s) => s);
  const { offer, error, result } = snapshot.context;
  const busy = snapshot.hasTag('busy');
  // "Use another address": the offer is given up (the server spends it), and the profile's
  // addresses show again. While the offer is open, nothing else leaves the merge.
  // As large as the choices beside it: it is one of them, not a footnote.
  const backToProfile = (
    <Button
      variant="secondary"
      loading={snapshot.matches('cancelling')}
      disabled={busy}
      onClick={() => flow.send({ type: 'CANCEL' })}
    >
      {t('fuzzion.cancel', { context: offer?.kind })}
    </Button>
  );

  if (snapshot.matches('succeeded') && result) return <Success result={result} />;
  if (snapshot.matches('failed')) {
    return (
      <Card>
        <Alert tone="error">{t([`errors.${error?.code}`, 'errors.merge_unavailable'])}</Alert>
        <p className="mt-4">{backToProfile}</p>
      </Card>
    );
  }
  // The other account signs in with Microsoft only: it is proven there, not here.
  if (snapshot.matches('ssoOnly')) {
    return (
      <Card>
        {offer && <p>{t('fuzzion.offer.text', { context: offer.kind, target: offer.target })}</p>}
        <Alert tone="warning" className={offer ? 'mt-3' : ''}>
          {t('errors.merge_sso_only')}
        </Alert>
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
          <Button variant="secondary" onClick={() => flow.send({ type: 'BACK' })}>
            {t('fuzzion.back')}
          </Button>
          {backToProfile}
        </div>
      </Card>
    );
  }
  if (!snapshot.matches('proving')) {
    // The offer (also while its choice is done, when the code was enough, or read again).
    const finishing = snapshot.matches('finishing');
    const intent = snapshot.context.intent;
    return (
      <Card>
        <p>{t('fuzzion.offer.text', { context: offer.kind, target: offer.target })}</p>
        <p className="mt-3 text-sm text-slate-700">{t('fuzzion.offer.merge')}</p>
        <p className="mt-3 text-sm text-slate-700">
          {t('fuzzion.offer.proof', { context: offer.enough ? 'enough' : undefined })}
        </p>
        <p className="mt-3 text-sm text-slate-700">{t('fuzzion.offer.declineText', { context: offer.kind })}</p>
        {error && (
          <div className="mt-3">
            <ErrorMessage error={error} />
          </div>
        )}
        <div className="mt-5 flex flex-col gap-3 sm:flex-row sm:flex-wrap">
          <Button
            loading={finishing && intent === 'merge'}
            disabled={busy}
            onClick={() => flow.send({ type: 'ACCEPT' })}
          >
            {t('fuzzion.offer.accept')}
          </Button>
          <Button
            variant="secondary"
            loading={finishing && intent === 'decline'}
            disabled={busy}
            onClick={() => flow.send({ type: 'DECLINE' })}
          >
            {t('fuzzion.offer.decline', { context: offer.kind })}
          </Button>
        </div>
        <p className="mt-4">{backToProfile}</p>
      </Card>
    );
  }
  // Proving the other account: one of its methods (or its password), then its answer.
  return (
    <Card>
      <p>{t('fuzzion.prove.intro', { context: snapshot.context.intent, target: offer.target })}</p>
      {snapshot.context.moreNeeded && (
        <Alert tone="info" className="mt-3">
          {t('fuzzion.prove.more')}
        </Alert>
      )}
      <Proof flow={flow} busy={busy} />
      <p className="mt-4">{backToProfile}</p>
    </Card>
  );
}

function Proof({ flow, busy }: { flow: Ref; busy: boolean }) {
  const { t } = useTranslation();
  const snapshot = useSelector(flow, (s) => s);
  const { methods, passwordCounts, password, error, selected, channel, challenge, captchaLevel, passkey } =
    snapshot.context;
  // Past the other account's ceiling of wrong passwords, the puzzle the server asked for goes with it.
  const puzzle = useCeilingCaptcha(captchaLevel);
  const entry = snapshot.children.fuzzionCode as CodeEntryRef<FuzzionAnswer, FuzzionResend> | undefined;
  const back = (label: string) => (
    <Button variant="secondary" size="sm" disabled={busy} onClick={() => flow.send({ type: 'BACK' })}>
      {t(label)}
    </Button>
  );
  // Opened in place, the address unchanged (so app/ScreenFocus.tsx does not move focus): focus goes to
  // the form's first field, the password's, or the code's once the code is sent.
  const form = useRef<HTMLDivElement>(null);
  const entering = snapshot.matches({ proving: 'entering' }) && selected !== null && challenge !== null;
  const typing = snapshot.matches({ proving: 'password' }) || snapshot.matches({ proving: 'checkingPassword' });
  const opened = typing ? 'password' : entering && entry ? 'code' : null;
  useEffect(() => {
    if (opened) form.current?.querySelector<HTMLElement>('[data-autofocus]')?.focus();
  }, [opened]);

  if (entering && selected && challenge) {
    const kind = selected.method === 'sms' && channel ? channel : selected.method;
    return (
      <div ref={form} className="mt-5 border-t border-slate-200 pt-4">
        <h2 className="text-lg font-semibold">{t(`mfa.code.title.${kind}`)}</h2>
        <p className="mt-1 text-sm text-slate-700">
          {t(`mfa.code.instruction.${kind}`, { target: challenge.sent?.target ?? selected.target ?? '' })}
        </p>
        {entry ? (
          <CodeEntryForm entry={entry} {...answerFormOf(selected.method)}>
            {back('mfa.code.changeMethod')}
          </CodeEntryForm>
        ) : (
          <p role="status" className="mt-5 text-sm">
            {t('mfa.sending')}
          </p>
        )}
      </div>
    );
  }
  if (typing) {
    return (
      <div ref={form}>
        <form
          noValidate
          className="mt-5 space-y-4 border-t border-slate-200 pt-4"
          onSubmit={(event) => {
            event.preventDefault();
            flow.send({ type: 'SUBMIT', ...puzzle.answer() });
          }}
        >
          <TextField
            label={t('fuzzion.password.label')}
            type="password"
            autoComplete="current-password"
            value={password}
            first
            onChange={(value) => flow.send({ type: 'TYPE_PASSWORD', value })}
            // Only a password is asked here: a wrong one is said as such, not as a wrong username.
            {...(error?.code === 'invalid_credentials'
              ? { problem: t('errors.invalid_credentials', { context: 'password' }) }
              : { error })}
          />
          {puzzle.widget}
          <div className="flex flex-wrap items-center gap-3">
            <Button type="submit" loading={busy}>
              {t('fuzzion.confirm')}
            </Button>
            {back('mfa.code.changeMethod')}
          </div>
        </form>
      </div>
    );
  }
  // Choosing: the other account's methods, as its sign-in lists them, and its password where it counts.
  const sending = snapshot.matches({ proving: 'starting' }) && selected !== null && CODED.has(selected.method);
  const usingPasskey = snapshot.matches({ proving: 'passkey' });
  return (
    <>
      <fieldset className="mt-5">
        <legend className="font-semibold">{t('fuzzion.prove.choose')}</legend>
        <MethodOptions
          className="mt-3"
          methods={methods}
          disabled={busy && !usingPasskey}
          busy={usingPasskey && passkey ? { id: passkey.id, channel: null } : null}
          onSelect={(id, phoneChannel) =>
            flow.send({ type: 'SELECT', id, ...(phoneChannel ? { channel: phoneChannel } : {}) })
          }
        />
        {passwordCounts && (
          <Button
            className="mt-2 w-full justify-start"
            variant="secondary"
            disabled={busy}
            onClick={() => flow.send({ type: 'USE_PASSWORD' })}
          >
            {t('fuzzion.proof.password')}
          </Button>
        )}
      </fieldset>
      {sending && (
        <p role="status" className="mt-3 text-sm">
          {t('mfa.sending')}
        </p>
      )}
      {usingPasskey && (
        <p role="status" className="mt-3 text-sm">
          {t(snapshot.matches({ proving: { passkey: 'checking' } }) ? 'mfa.passkey.checking' : 'mfa.passkey.waiting')}
        </p>
      )}
      {error && (
        <div className="mt-3">
          {/* A passkey's failure speaks of its request, not of a code. */}
          <ErrorMessage error={error} context={passkey ? 'passkey' : undefined} />
        </div>
      )}
      <div className="mt-5">{back('fuzzion.back')}</div>
    </>
  );
}

function Success({ result }: { result: FuzzionResult }) {
  const { t } = useTranslation();
  const list = (items: Array<{ value: string; primary: boolean }>) => (
    <ul className="mt-1 space-y-1">
      {items.map((item) => (
        <li key={item.value} className="break-all">
          {formatPhone(item.value)}
          {item.primary && (
            <>
              {' '}
              <span className="text-sm text-slate-700">({t('fuzzion.success.primary')})</span>
            </>
          )}
        </li>
      ))}
    </ul>
  );
  return (
    <Card>
      <Alert tone="success">{t(`fuzzion.success.${result.outcome}`)}</Alert>
      <h2 className="mt-4 font-semibold">{t('fuzzion.success.emails')}</h2>
      {list(result.emails)}
      <h2 className="mt-4 font-semibold">{t('fuzzion.success.phones')}</h2>
      {list(result.phones)}
      <p className="mt-5">
        <Link to={pathOf('profile', 'overview')} className="btn btn-primary">
          {t('fuzzion.success.toProfile')}
        </Link>
      </p>
    </Card>
  );
}
