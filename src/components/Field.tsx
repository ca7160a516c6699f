// The labelled input and the error message every form uses: the label names the input, and an
// error is tied to it (aria-invalid, aria-describedby) and announced.
import { useId, type HTMLAttributes, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Problem as MachineProblem } from '../../machines/failures.ts';
import { Alert } from './Alert.tsx';

/** A failure to show, by its stable code: its text is `errors.<code>` in the locales. */
export type Problem = MachineProblem | null;

export function ErrorMessage({ id, error }: { id?: string; error: Problem }) {
  const { t } = useTranslation();
  return (
    <div aria-live="assertive">
      {error && (
        <Alert tone="error" id={id}>
          {t([`errors.${error.code}`, 'errors.internal_error'])}
        </Alert>
      )}
    </div>
  );
}

/** What ties a control to its label and its problem. */
type ControlProps = { id: string; 'aria-invalid'?: true; 'aria-describedby'?: string };

/** A control under its label, then its problem (an API failure's code, or the form's own words),
 * announced and tied to it. */
export function LabelledControl({
  label,
  error,
  problem,
  children,
}: {
  label: ReactNode;
  error?: Problem;
  problem?: string | null;
  children: (control: ControlProps) => ReactNode;
}) {
  const id = useId();
  const errorId = useId();
  const invalid = !!(error || problem);
  return (
    <div className="space-y-4">
      <div>
        <label htmlFor={id} className="block text-sm font-medium">
          {label}
        </label>
        {children({
          id,
          'aria-invalid': invalid ? true : undefined,
          'aria-describedby': invalid ? errorId : undefined,
        })}
      </div>
      {error !== undefined && <ErrorMessage id={errorId} error={error} />}
      {problem !== undefined && (
        <div aria-live="assertive">
          {problem && (
            <Alert tone="error" id={errorId}>
              {problem}
            </Alert>
          )}
        </div>
      )}
    </div>
  );
}

export function TextField(props: {
  label: ReactNode;
  value: string;
  onChange: (value: string) => void;
  error?: Problem;
  type?: string;
  inputMode?: HTMLAttributes<HTMLInputElement>['inputMode'];
  autoComplete?: string;
  /** Codes read better in a monospaced, spaced-out font. */
  code?: boolean;
  /** The screen's first field for typing: focus comes to it when the screen shows (app/ScreenFocus.tsx). */
  first?: boolean;
  /** A problem of this field in words (a form's own check), instead of an API failure's code. */
  problem?: string | null;
  max?: string;
}) {
  return (
    <LabelledControl label={props.label} error={props.error} problem={props.problem}>
      {(control) => (
        <input
          {...control}
          type={props.type ?? 'text'}
          inputMode={props.inputMode}
          autoComplete={props.autoComplete}
          data-autofocus={props.first ? true : undefined}
          spellCheck={props.code ? false : undefined}
          value={props.value}
          max={props.max}
          onChange={(event) => props.onChange(event.target.value)}
          className={`input mt-1 ${props.code ? 'font-mono text-lg tracking-widest' : ''}`}
        />
      )}
    </LabelledControl>
  );
}
