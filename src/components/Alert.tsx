// The one way to show an error, a success, a piece of information or a warning. An error is an
// alert, the others a status; `role` overrides that (null: no role, for text that is there from
// the start). The tones' colours are classes of src/styles.css (alert, alert-*).
import type { ReactNode } from 'react';

export function Alert({
  tone,
  id,
  role,
  className = '',
  children,
}: {
  tone: 'error' | 'success' | 'info' | 'warning';
  id?: string;
  role?: 'alert' | 'status' | null;
  className?: string;
  children: ReactNode;
}) {
  return (
    <div
      id={id}
      role={role === null ? undefined : (role ?? (tone === 'error' ? 'alert' : 'status'))}
      className={`alert alert-${tone} ${className}`}
    >
      {children}
    </div>
  );
}

/** A save's answer ("Your preferences were saved."), heard by screen readers: its live region is on
 * the screen before its words are, since a region that appears with its text already in it is often
 * not read out. Empty, it takes no room. */
export function SaveNotice({ className = '', children }: { className?: string; children: ReactNode }) {
  return (
    <div role="status" data-testid="save-notice" className={children ? className : ''}>
      {children ? (
        <Alert tone="success" role={null}>
          {children}
        </Alert>
      ) : null}
    </div>
  );
}
