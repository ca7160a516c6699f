// "Sign in with Microsoft" on the sign-in screen (spec §2 "Microsoft login beta modal";
// docs/architecture.md "Microsoft sign-in"), loaded only where the server has it configured: the
// button, the refusal the callback sent back, and the beta notice, a projection of
// machines/microsoft.ts microsoftStart.
import { useActorRef, useSelector } from '@xstate/react';
import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ErrorCode } from '../../contract/errors.ts';
import { microsoftStartMachine, type Tenant } from '../../machines/microsoft.ts';
import { deviceId } from '../api/device.ts';
import { useRootActor } from '../shell/context.ts';
import { Alert } from '../components/Alert.tsx';
import { Button } from '../components/Button.tsx';

const START = microsoftStartMachine.provide({ actions: { leaveTo: (_, { url }) => window.location.assign(url) } });

/** What the callback may say went wrong (contract/sso.ts SSO_ERROR_PATH: `?sso_error=`). */
const SSO_ERRORS: readonly string[] = ['sso_failed', 'sso_tenant_not_allowed', 'sso_unavailable'] satisfies ErrorCode[];

/** "Sign in with Microsoft", what went wrong on its last try, and its beta notice while open. */
export default function MicrosoftSignIn() {
  const { t } = useTranslation();
  const root = useRootActor();
  const tenants = useSelector(root, (s) => s.context.config?.microsoft?.tenants ?? []);
  const search = useSelector(root, (s) => s.context.location.search);
  // Where the sign-in goes afterwards: the page the guard sent here from, or a partner's request.
  const redirect = useSelector(root, (s) => s.context.target);
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const error = new URLSearchParams(search).get('sso_error');
  return (
    <div className="mt-4">
      {error && SSO_ERRORS.includes(error) && (
        <Alert tone="error" className="mb-3">
          {t(`errors.${error}`)}
        </Alert>
      )}
      <Button ref={button} variant="secondary" full onClick={() => setOpen(true)} aria-haspopup="dialog">
        <MicrosoftLogo />
        {t('microsoft.button')}
      </Button>
      {open && (
        <BetaNotice
          tenants={tenants}
          redirect={redirect}
          onClose={() => {
            setOpen(false);
            button.current?.focus();
          }}
        />
      )}
    </div>
  );
}

function BetaNotice({
  tenants,
  redirect,
  onClose,
}: {
  tenants: readonly Tenant[];
  redirect: string | null;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const flow = useActorRef(START, { input: { tenants, device: deviceId(), redirect } });
  const { tenant } = useSelector(flow, (s) => s.context);
  const leaving = useSelector(flow, (s) => s.hasTag('busy'));
  const closed = useSelector(flow, (s) => s.matches('closed'));
  const dialog = useRef<HTMLDialogElement>(null);
  const ids = { title: useId(), text: useId() };
  const unnamed = t('microsoft.unnamed');

  // A native modal: the page behind is inert, Escape closes it, and focus stays inside.
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  // Closed before it leaves the page: until then the page behind is inert and cannot take the focus back.
  useEffect(() => {
    if (!closed) return;
    dialog.current?.close();
    onClose();
  }, [closed, onClose]);

  return (
    <dialog
      ref={dialog}
      aria-labelledby={ids.title}
      aria-describedby={ids.text}
      onCancel={(event) => {
        event.preventDefault();
        flow.send({ type: 'CLOSE' });
      }}
      className="m-auto w-[calc(100%-2rem)] max-w-md rounded-lg bg-white p-6 text-slate-900 shadow-xl backdrop:bg-slate-900/50"
    >
      <h2 id={ids.title} className="text-xl font-bold">
        {t('microsoft.notice.title')}
      </h2>
      <p id={ids.text} className="mt-3">
        {tenants.length === 1
          ? t('microsoft.notice.one', { company: tenants[0]!.name ?? unnamed })
          : t('microsoft.notice.several')}
      </p>
      {tenants.length > 1 && (
        <fieldset className="mt-4">
          <legend className="text-sm font-medium">{t('microsoft.notice.choose')}</legend>
          <div className="mt-2 space-y-2">
            {tenants.map((option) => (
              <label key={option.id} className="flex min-h-11 items-center gap-3 rounded border border-slate-300 px-3">
                <input
                  type="radio"
                  name="tenant"
                  value={option.id}
                  checked={tenant === option.id}
                  onChange={() => flow.send({ type: 'CHOOSE', tenant: option.id })}
                />
                {option.name ?? unnamed}
              </label>
            ))}
          </div>
        </fieldset>
      )}
      <p className="mt-4 text-sm text-slate-700">{t('microsoft.notice.after')}</p>
      <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Button variant="secondary" onClick={() => flow.send({ type: 'CLOSE' })} disabled={leaving}>
          {t('microsoft.notice.cancel')}
        </Button>
        <Button onClick={() => flow.send({ type: 'CONTINUE' })} disabled={tenant === null} loading={leaving}>
          {t('microsoft.notice.continue')}
        </Button>
      </div>
    </dialog>
  );
}

function MicrosoftLogo() {
  return (
    <svg aria-hidden="true" viewBox="0 0 21 21" className="mr-2 inline h-5 w-5 align-[-4px]">
      <path fill="#f25022" d="M1 1h9v9H1z" />
      <path fill="#7fba00" d="M11 1h9v9h-9z" />
      <path fill="#00a4ef" d="M1 11h9v9H1z" />
      <path fill="#ffb900" d="M11 11h9v9h-9z" />
    </svg>
  );
}
