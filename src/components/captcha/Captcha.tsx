// The CAPTCHA widget of a form: a projection of its own small machine (machines/captcha.ts), which
// solves the proof of work while the user types. The form asks it for an answer on submit (take).
import { useActorRef, useSelector } from '@xstate/react';
import { useEffect, useImperativeHandle, type Ref } from 'react';
import { useTranslation } from 'react-i18next';
import { fromPromise } from 'xstate';
import { answerOf, captchaMachine, type CaptchaAnswer, type CaptchaLevel } from '../../../machines/captcha.ts';
import { useRootActor } from '../../shell/context.ts';
import { Button } from '../Button.tsx';
import { ErrorMessage } from '../Field.tsx';
import { solveCaptcha } from './solve.ts';

export type CaptchaHandle = { take(): CaptchaAnswer };

const widget = captchaMachine.provide({ actors: { solve: fromPromise(({ input }) => solveCaptcha(input.level)) } });

type Props = { ref: Ref<CaptchaHandle>; onReady?: () => void; level?: CaptchaLevel };

/** `onReady`: called whenever a solution is ready while it is given (a form waiting to resubmit).
 * `level`: how hard a puzzle the server asked for; a new level starts a new widget on it. */
export function Captcha(props: Props) {
  return <Widget key={props.level ?? 0} {...props} />;
}

function Widget({ ref, onReady, level }: Props) {
  const { t } = useTranslation();
  const enabled = useSelector(useRootActor(), (s) => s.context.config?.captcha ?? true);
  const captcha = useActorRef(widget, { input: { enabled, level: level ?? 0 } });
  const state = useSelector(captcha, (s) => s);
  useImperativeHandle(
    ref,
    () => ({
      take() {
        const answer = answerOf(captcha.getSnapshot());
        if ('token' in answer && answer.token) captcha.send({ type: 'TAKE' });
        return answer;
      },
    }),
    [captcha],
  );

  const ready = state.matches('ready') || state.matches('off');
  useEffect(() => {
    if (ready && onReady) onReady();
  }, [ready, onReady]);

  if (state.matches('off')) return null;
  return (
    <div className="rounded border border-slate-300 bg-slate-50 px-3 py-2 text-sm" data-testid="captcha">
      <div className="flex items-center gap-2">
        {state.matches('failed') ? null : (
          <span
            aria-hidden="true"
            className={
              state.matches('ready') ? 'text-green-800' : 'inline-block animate-spin motion-reduce:animate-none'
            }
          >
            {state.matches('ready') ? '✓' : '◌'}
          </span>
        )}
        <p role="status" className="text-slate-800">
          {state.matches('ready')
            ? t('captcha.ready')
            : state.matches('failed')
              ? t('captcha.failed')
              : t('captcha.solving')}
        </p>
        <span className="ml-auto text-xs text-slate-600">{t('captcha.by')}</span>
      </div>
      {state.matches('failed') && (
        <div className="mt-2 space-y-2">
          <ErrorMessage error={state.context.error} />
          <Button variant="secondary" size="sm" onClick={() => captcha.send({ type: 'RETRY' })}>
            {t('captcha.retry')}
          </Button>
        </div>
      )}
    </div>
  );
}
