// The shared "select with All and Selected" (spec §2 "Shared UI"): a group of two choices, All or
// Selected, and under Selected a checkbox per option. All answers null; Selected answers the
// options ticked (the first choice of Selected starts with every option ticked, so unticking
// narrows it down).
import { useId } from 'react';
import { useTranslation } from 'react-i18next';

export type Choice = { value: string; label: string };

export function ChoiceSelect({
  legend,
  options,
  value,
  onChange,
  testId,
}: {
  legend: string;
  options: readonly Choice[];
  value: readonly string[] | null;
  onChange: (value: string[] | null) => void;
  testId?: string;
}) {
  const { t } = useTranslation();
  const name = useId();
  const selected = value !== null;
  return (
    <fieldset data-testid={testId}>
      <legend className="text-sm font-medium">{legend}</legend>
      <div className="mt-1 flex flex-wrap gap-4">
        <label className="inline-flex min-h-11 items-center gap-2">
          <input type="radio" name={name} checked={!selected} onChange={() => onChange(null)} className="h-5 w-5" />
          {t('choiceSelect.all')}
        </label>
        <label className="inline-flex min-h-11 items-center gap-2">
          <input
            type="radio"
            name={name}
            checked={selected}
            onChange={() => onChange(options.map((o) => o.value))}
            className="h-5 w-5"
          />
          {t('choiceSelect.selected')}
        </label>
      </div>
      {selected && (
        <ul className="mt-2 grid gap-x-4 sm:grid-cols-2" aria-label={t('choiceSelect.options', { legend })}>
          {options.map((option) => (
            <li key={option.value}>
              <label className="inline-flex min-h-11 items-center gap-2">
                <input
                  type="checkbox"
                  className="h-5 w-5"
                  checked={value.includes(option.value)}
                  onChange={(event) =>
                    onChange(
                      event.target.checked
                        ? options.map((o) => o.value).filter((v) => v === option.value || value.includes(v))
                        : value.filter((v) => v !== option.value),
                    )
                  }
                />
                {option.label}
              </label>
            </li>
          ))}
        </ul>
      )}
    </fieldset>
  );
}
