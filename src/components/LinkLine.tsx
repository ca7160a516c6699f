// A line of its own holding one link: the way on from a section or a form (back, open, add).
import type { ReactNode } from 'react';
import { Link } from 'react-router';

export function LinkLine({ to, children }: { to: string; children: ReactNode }) {
  return (
    <p className="mt-4 text-sm">
      <Link to={to} className="text-brand underline">
        {children}
      </Link>
    </p>
  );
}
