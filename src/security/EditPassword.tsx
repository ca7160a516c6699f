// /security/edit-password: the current password, the new one with its checklist and confirmation
// (the form every new password uses), and whether this device stays signed in; a projection of the
// edit-password machine (past the account's ceiling of wrong passwords, with the puzzle the server
// asked for: the new-password form shows it). Taken, the success notice shows; when this device was
// signed out too, the root has already gone to the sign-in screen.
import { useSelector } from '@xstate/react';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { ActorRefFrom } from 'xstate';
import type { editPasswordMachine } from '../../machines/editPassword.ts';
import { pathOf } from '../../machines/routes.ts';
import { Alert } from '../components/Alert.tsx';
import { Card } from '../components/Card.tsx';
import { TextField } from '../components/Field.tsx';
import { useFlowChild } from '../components/FlowCard.tsx';
import { NewPassword } from '../components/NewPassword.tsx';
import { Loading } from '../components/Pending.tsx';
import { LinkLine } from '../components/LinkLine.tsx';

type EditRef = ActorRefFrom<typeof editPasswordMachine>;

export function EditPassword() {
  const flow = useFlowChild('editPassword');
  return flow ? <Form flow={flow} /> : <Loading className="mt-4" />;
}

function Form({ flow }: { flow: EditRef }) {
  const { t } = useTranslation();
  const { current, keepThisSession, currentMissing } = useSelector(flow, (s) => s.context);
  const changed = useSelector(flow, (s) => s.matches('changed'));
  const child = useSelector(flow, (s) => s.children.newPassword);
  if (changed) return <Changed />;
  return (
    <Card className="mt-5">
      <p className="mb-5 text-sm text-slate-700">{t('security.password.text')}</p>
      {child ? (
        <NewPassword
          weak={child}
          title={null}
          submit="security.password.submit"
          onSubmit={(answer) => flow.send({ type: 'SUBMIT', ...answer })}
          before={
            <TextField
              label={t('security.password.current')}
              type="password"
              autoComplete="current-password"
              value={current}
              first
              error={currentMissing ? { code: 'required_password' } : undefined}
              onChange={(value) => flow.send({ type: 'CURRENT', value })}
            />
          }
          after={
            <label className="flex min-h-11 items-center gap-2 text-sm">
              <input
                type="checkbox"
                checked={keepThisSession}
                onChange={(event) => flow.send({ type: 'KEEP', value: event.target.checked })}
                className="h-5 w-5"
              />
              {t('security.password.keep')}
            </label>
          }
        />
      ) : (
        <Loading />
      )}
    </Card>
  );
}

/** The success notice; focus comes to it, as the form it replaces held it. */
function Changed() {
  const { t } = useTranslation();
  const notice = useRef<HTMLDivElement>(null);
  useEffect(() => notice.current?.focus(), []);
  return (
    <Card className="mt-5">
      <div ref={notice} tabIndex={-1}>
        <Alert tone="success">{t('security.password.changed')}</Alert>
      </div>
      <LinkLine to={pathOf('security', 'overview')}>{t('security.back')}</LinkLine>
    </Card>
  );
}
