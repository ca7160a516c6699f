// The labelled input and the error message every form uses: the label names the input, and an
// error is tied to it (aria-invalid, aria-describedby) and announced.
import { useEffect, useId, type ClipboardEventHandler, type HTMLAttributes, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Problem as MachineProblem } from '../../machines/failures.ts';
import { Alert } from './Alert.tsx';

/** A failure to show, by its stable code: its text is `errors.<code>` in the locales. */
export type Problem = MachineProblem | null;

/** `context`: the i18next context the message is read in; `children`: what follows the message in
 * its alert (a way to get help). */
export function ErrorMessage({
  id,
  error,
  context,
  children,
}: {
  id?: string;
  error: Problem;
  context?: string | undefined;
  children?: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <div aria-live="assertive">
      {error && (
        <Alert tone="error" id={id}>
          {t([`errors.${error.code}`, 'errors.internal_error'], { context })}
          {children}
        </Alert>
      )}
    </div>
  );
}

/** A failure that comes back from a submission brings focus to the field it concerns (a wrong
 * password, a wrong code), with what it holds selected where asked (typing then replaces it), unless
 * the person is typing in another field meanwhile. Without it, focus stays on the button that was
 * pressed or falls to the page. */
export function useFocusOnFailure(
  failure: unknown,
  controlId: string,
  { select = false, always = false }: { select?: boolean; always?: boolean } = {},
): void {
  useEffect(() => {
    if (!failure) return;
    const control = document.getElementById(controlId);
    const active = document.activeElement;
    const typingElsewhere = active && active !== control && active.matches('input, textarea, select');
    if (!control || (typingElsewhere && !always)) return;
    control.focus();
    if (select && control instanceof HTMLInputElement) control.select();
  }, [failure, controlId, select, always]);
}

/** What ties a control to its label and its problem. */
type ControlProps = { id: string; 'aria-invalid'?: true; 'aria-describedby'?: string };

/** A control under its label, then its problem (an API failure's code, or the form's own words),
 * announced and tied to it. */
export function LabelledControl({
  label,
  error,
  problem,
  selectOnError = false,
  children,
}: {
  label: ReactNode;
  error?: Problem;
  problem?: string | null;
  /** A failure selects what the field holds (a wrong code, to be typed over). */
  selectOnError?: boolean;
  children: (control: ControlProps) => ReactNode;
}) {
  const id = useId();
  const errorId = useId();
  useFocusOnFailure(error || problem || null, id, { select: selectOnError });
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
  /** The most characters the field takes (a passkey's name). */
  maxLength?: number;
  onPaste?: ClipboardEventHandler<HTMLInputElement>;
  /** A failure selects what the field holds (a wrong code, to be typed over). */
  selectOnError?: boolean;
}) {
  return (
    <LabelledControl
      label={props.label}
      error={props.error}
      problem={props.problem}
      selectOnError={props.selectOnError}
    >
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
          maxLength={props.maxLength}
          onChange={(event) => props.onChange(event.target.value)}
          onPaste={props.onPaste}
          className={`input mt-1 ${props.code ? 'font-mono text-lg tracking-widest' : ''}`}
        />
      )}
    </LabelledControl>
  );
}
