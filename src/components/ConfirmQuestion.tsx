// The question before a change that cannot be undone (a deletion, a revocation, a sign-out): an
// alert dialog in the page's flow, not a modal. Focus comes to its heading, and No is one key away
// (Escape).
import { useEffect, useRef } from 'react';
import { Button } from './Button.tsx';

export function ConfirmQuestion({
  id,
  level = 2,
  title,
  text,
  yes,
  no,
  danger = true,
  busy,
  onConfirm,
  onCancel,
  returnFocusTo,
}: {
  /** Its title is `<id>-title` and its text `<id>-text`, which name and describe it. */
  id: string;
  /** Its heading's level: 3 inside a section of the page. */
  level?: 2 | 3;
  title: string;
  text: string;
  yes: string;
  no: string;
  /** Yes in the danger colour (the default), else as the step's action. */
  danger?: boolean;
  /** While the answer goes: Yes waits, No is off. */
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  /** The id of what focus goes back to once the question closes. */
  returnFocusTo?: string;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
    if (returnFocusTo === undefined) return;
    return () => document.getElementById(returnFocusTo)?.focus();
  }, [returnFocusTo]);
  const Heading = level === 3 ? 'h3' : 'h2';
  return (
    <div
      role="alertdialog"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-text`}
      className="rounded-lg border-2 border-amber-500 bg-white p-4"
      onKeyDown={(event) => {
        if (event.key === 'Escape') onCancel();
      }}
    >
      <Heading id={`${id}-title`} ref={heading} tabIndex={-1} className="text-lg font-semibold">
        {title}
      </Heading>
      <p id={`${id}-text`} className="mt-1 text-sm text-slate-800">
        {text}
      </p>
      <div className="mt-4 flex flex-wrap gap-3">
        <Button variant={danger ? 'danger' : 'primary'} loading={busy} onClick={onConfirm}>
          {yes}
        </Button>
        <Button variant="secondary" disabled={busy} onClick={onCancel}>
          {no}
        </Button>
      </div>
    </div>
  );
}
