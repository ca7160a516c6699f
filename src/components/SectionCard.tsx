// A card that is one section of its page, named by its heading: the heading, the section's one
// action beside it (edit, change) where it has one, and a line saying what the section is for.
import type { HTMLAttributes, ReactNode } from 'react';
import { Card } from './Card.tsx';

export function SectionCard({
  titleId,
  title,
  action,
  intro,
  children,
  ...rest
}: Omit<HTMLAttributes<HTMLElement>, 'title'> & {
  /** The heading's id, which names the section. */
  titleId: string;
  title: ReactNode;
  action?: ReactNode;
  intro?: ReactNode;
}) {
  const heading = (
    <h2 id={titleId} className="text-lg font-semibold">
      {title}
    </h2>
  );
  return (
    <Card {...rest} aria-labelledby={titleId}>
      {action ? (
        <div className="flex flex-wrap items-center justify-between gap-3">
          {heading}
          {action}
        </div>
      ) : (
        heading
      )}
      {intro && <p className="mt-1 text-sm text-slate-700">{intro}</p>}
      {children}
    </Card>
  );
}
