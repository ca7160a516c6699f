// A small label beside a name, e.g. "Primary" on a sign-in method.
import type { ReactNode } from 'react';

export function Badge({ children }: { children: ReactNode }) {
  return (
    <span className="inline-block rounded-full bg-brand-light px-2 py-0.5 text-xs font-semibold text-brand-dark">
      {children}
    </span>
  );
}

/** A badge after a name in running text: a space before it, and a pause where it is read out. */
export function TrailingBadge({ children }: { children: ReactNode }) {
  return (
    <>
      {' '}
      <span className="sr-only">— </span>
      <Badge>{children}</Badge>
    </>
  );
}
