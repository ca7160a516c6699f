// The new-password form every flow uses (weak-password renewal, forgotten password, onboarding, a
// change while signed in, which adds its own fields around it and submits through its own flow):
// a projection of the new-password machine, with the live checklist of the password rules: each
// rule is written as what is asked, with its number, and shows as met once it is. A change, whose
// current password counts against the account's ceiling of wrong passwords, may be asked for a
// puzzle with each try: the widget then shows at the level the server named.
import { useSelector } from '@xstate/react';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { passwordProblems, type PasswordPolicy, type PasswordProblem } from '../../contract/password.ts';
import type { NewPasswordRef } from '../../machines/newPassword.ts';
import type { CaptchaAnswer } from '../../machines/captchaAnswer.ts';
import { useCeilingCaptcha } from './captcha/useCeilingCaptcha.tsx';
import { Alert } from './Alert.tsx';
import { Button } from './Button.tsx';
import { ErrorMessage, TextField } from './Field.tsx';
import { Form } from './Form.tsx';
import { useRootActor } from '../shell/context.ts';

export type WeakRef = NewPasswordRef;
/** Each rule, the problem that breaks it, and the policy number it states. */
const RULES: Array<{ rule: string; problem: PasswordProblem; count: (policy: PasswordPolicy) => number | null }> = [
  { rule: 'length', problem: 'too_short', count: (policy) => policy.minLength },
  { rule: 'letter', problem: 'no_letter', count: (policy) => policy.minLetters },
  { rule: 'number', problem: 'no_number', count: (policy) => policy.minDigits },
  { rule: 'special', problem: 'no_special', count: (policy) => policy.minSpecial },
  { rule: 'match', problem: 'mismatch', count: () => null },
];

/** `title` null: the screen has its heading already. `before` and `after`: the flow's own fields,
 * before the new password and after its rules; `onSubmit`: the flow submits (it gives the
 * new-password machine what goes with the password first, and passes the puzzle's answer on). */
export function NewPassword({
  weak,
  title = 'weakPassword.title',
  text = 'weakPassword.text',
  submit = 'weakPassword.submit',
  before,
  after,
  onSubmit,
}: {
  weak: WeakRef;
  title?: string | null;
  text?: string;
  submit?: string;
  before?: ReactNode;
  after?: ReactNode;
  onSubmit?: (answer: { captcha?: CaptchaAnswer }) => void;
}) {
  const { t } = useTranslation();
  const { password, confirmation, error, policy, refused, captchaLevel } = useSelector(weak, (s) => s.context);
  // The account the password is for, which a password manager saves it under: the signed-in one's
  // primary email, or the address typed on the way here (sign-in, forgotten password).
  const username = useSelector(useRootActor(), (s) => s.context.user?.email[0]?.value ?? s.context.username);
  const saving = useSelector(weak, (s) => s.matches('saving'));
  const puzzle = useCeilingCaptcha(captchaLevel);
  const problems = passwordProblems(password, policy, confirmation);
  // Both fields show or hide together: the person compares them.
  const [shown, setShown] = useState(false);
  return (
    <>
      {title !== null && (
        <>
          <h1 className="text-2xl font-bold">{t(title)}</h1>
          <p className="mt-1 text-sm text-slate-700">{t(text)}</p>
        </>
      )}
      <Form
        className={`${title !== null ? 'mt-5 ' : ''}space-y-4`}
        onSubmit={() => {
          const answer = puzzle.answer();
          if (onSubmit) onSubmit(answer);
          else weak.send({ type: 'SUBMIT', ...answer });
        }}
      >
        {before}
        <HiddenUsername value={username} />
        {(['password', 'confirmation'] as const).map((field) => (
          <TextField
            key={field}
            label={t(`weakPassword.${field}`)}
            type={shown ? 'text' : 'password'}
            autoComplete="new-password"
            first={field === 'password'}
            value={field === 'password' ? password : confirmation}
            onChange={(value) => weak.send({ type: 'CHANGE', field, value })}
          />
        ))}
        <label className="flex min-h-11 items-center gap-2 text-sm">
          <input
            type="checkbox"
            checked={shown}
            onChange={(event) => setShown(event.target.checked)}
            className="h-5 w-5"
          />
          {t('weakPassword.show')}
        </label>
        <ul aria-label={t('weakPassword.rules')} className="space-y-1 text-sm" data-testid="password-rules">
          {RULES.filter(({ count }) => count(policy) !== 0).map(({ rule, problem, count }) => {
            const met = password !== '' && !problems.includes(problem) && !problems.includes('required');
            const n = count(policy);
            // Once a try was refused, every rule still unmet is marked, not only the one the message names.
            const missed = !met && refused !== null;
            return (
              <li
                key={rule}
                className={met ? 'text-green-800' : missed ? 'font-medium text-red-700' : 'text-slate-700'}
              >
                <span aria-hidden="true">{met ? '✓ ' : missed ? '✗ ' : '• '}</span>
                {t(`weakPassword.rule.${rule}`, n === null ? {} : { count: n })}
                <span className="sr-only"> — {t(met ? 'weakPassword.met' : 'weakPassword.notMet')}</span>
              </li>
            );
          })}
        </ul>
        <p className="text-sm text-slate-700">{t('weakPassword.common')}</p>
        {after}
        {puzzle.widget}
        <div aria-live="assertive">{refused && <Alert tone="error">{t(`weakPassword.check.${refused}`)}</Alert>}</div>
        <ErrorMessage error={error} />
        <Button type="submit" full loading={saving}>
          {t(submit)}
        </Button>
      </Form>
    </>
  );
}

/** For password managers only: the account a password form is for (not shown, never focused). */
export function HiddenUsername({ value }: { value: string }) {
  return value ? <input type="text" name="username" autoComplete="username" value={value} readOnly hidden /> : null;
}
