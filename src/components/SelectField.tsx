// A labelled choice among a few options, with its problem tied to it as TextField does
// (src/components/Field.tsx, whose frame it shares).
import type { ReactNode } from 'react';
import { LabelledControl } from './Field.tsx';

/** A labelled choice among a few options; `problem` as for TextField. */
export function SelectField(props: {
  label: ReactNode;
  value: string;
  onChange: (value: string) => void;
  options: { value: string; label: string; lang?: string }[];
  autoComplete?: string;
  problem?: string | null;
}) {
  return (
    <LabelledControl label={props.label} problem={props.problem}>
      {(control) => (
        <select
          {...control}
          value={props.value}
          autoComplete={props.autoComplete}
          onChange={(event) => props.onChange(event.target.value)}
          className="input mt-1"
        >
          {props.options.map((option) => (
            <option key={option.value} value={option.value} lang={option.lang}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    </LabelledControl>
  );
}
