// The new-password form every flow uses (weak-password renewal, forgotten password, onboarding):
// a projection of the new-password machine, with the live checklist of the password rules.
import { useSelector } from '@xstate/react';
import { useTranslation } from 'react-i18next';
import type { ActorRefFrom } from 'xstate';
import { passwordProblems, type PasswordProblem } from '../../contract/password.ts';
import type { newPasswordMachine } from '../../machines/newPassword.ts';
import { Button } from './Button.tsx';
import { ErrorMessage, TextField } from './Field.tsx';

export type WeakRef = ActorRefFrom<typeof newPasswordMachine>;
const CHECKS: PasswordProblem[] = ['too_short', 'no_letter', 'no_number', 'no_special', 'mismatch'];

export function NewPassword({ weak, title = 'weak.title', text = 'weak.text', submit = 'weak.submit' }: { weak: WeakRef; title?: string; text?: string; submit?: string }) {
  const { t } = useTranslation();
  const { password, confirmation, error, policy } = useSelector(weak, (s) => s.context);
  const saving = useSelector(weak, (s) => s.matches('saving'));
  const problems = passwordProblems(password, policy, confirmation);
  return (
    <>
      <h1 className="text-2xl font-bold">{t(title)}</h1>
      <p className="mt-1 text-sm text-slate-700">{t(text)}</p>
      <form className="mt-5 space-y-4" noValidate onSubmit={(event) => { event.preventDefault(); weak.send({ type: 'SUBMIT' }); }}>
        <TextField label={t('weak.password')} type="password" autoComplete="new-password" value={password}
          onChange={(value) => weak.send({ type: 'CHANGE', field: 'password', value })} />
        <TextField label={t('weak.confirmation')} type="password" autoComplete="new-password" value={confirmation}
          onChange={(value) => weak.send({ type: 'CHANGE', field: 'confirmation', value })} />
        <ul aria-label={t('weak.rules')} className="space-y-1 text-sm" data-testid="password-rules">
          {CHECKS.map((check) => {
            const ok = password !== '' && !problems.includes(check) && !problems.includes('required');
            return <li key={check} className={ok ? 'text-green-800' : 'text-slate-700'}>{ok ? '✓ ' : '• '}{t(`weak.check.${check}`)}</li>;
          })}
        </ul>
        <ErrorMessage error={error} />
        <Button type="submit" full loading={saving}>{t(submit)}</Button>
      </form>
    </>
  );
}
