// The white bordered panel every screen puts its content in (its look: `card` in src/styles.css).
import type { HTMLAttributes } from 'react';

export function Card({ className = '', ...rest }: HTMLAttributes<HTMLElement>) {
  return <section {...rest} className={`card ${className}`} />;
}
