// A labelled choice among a few options, with its problem tied to it as TextField does
// (src/components/Field.tsx); apart from it, since the first screen has no select.
import { useId, type ReactNode } from 'react';
import { Alert } from './Alert.tsx';

/** A labelled choice among a few options; `problem` as for TextField. */
export function SelectField(props: {
  label: ReactNode;
  value: string;
  onChange: (value: string) => void;
  options: { value: string; label: string; lang?: string }[];
  autoComplete?: string;
  problem?: string | null;
}) {
  const id = useId();
  const errorId = useId();
  return (
    <div className="space-y-4">
      <div>
        <label htmlFor={id} className="block text-sm font-medium">
          {props.label}
        </label>
        <select
          id={id}
          value={props.value}
          autoComplete={props.autoComplete}
          aria-invalid={props.problem ? true : undefined}
          aria-describedby={props.problem ? errorId : undefined}
          onChange={(event) => props.onChange(event.target.value)}
          className="input mt-1"
        >
          {props.options.map((option) => (
            <option key={option.value} value={option.value} lang={option.lang}>
              {option.label}
            </option>
          ))}
        </select>
      </div>
      {props.problem !== undefined && (
        <div aria-live="assertive">
          {props.problem && (
            <Alert tone="error" id={errorId}>
              {props.problem}
            </Alert>
          )}
        </div>
      )}
    </div>
  );
}
