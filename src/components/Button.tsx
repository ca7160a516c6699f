// The one button of the app: primary (the step's action), secondary (back, skip, copy…) and
// danger (delete). `loading` disables it and marks it busy, keeping its label and so its name.
// Its look (with its focus ring) and its variants' colours are classes of src/styles.css (btn,
// btn-sm, btn-*), out of the first load's script.
import type { ComponentPropsWithRef } from 'react';

export function Button({
  variant = 'primary',
  size,
  full,
  loading,
  disabled,
  type = 'button',
  className = '',
  children,
  ...rest
}: ComponentPropsWithRef<'button'> & {
  variant?: 'primary' | 'secondary' | 'danger';
  /** Small: inside a list or beside a field; still 44 px tall on phones. */
  size?: 'sm';
  full?: boolean;
  loading?: boolean;
}) {
  return (
    <button
      {...rest}
      type={type}
      disabled={disabled || loading}
      aria-busy={loading || undefined}
      className={`btn btn-${variant} ${size ? 'btn-sm' : ''} ${full ? 'w-full' : ''} ${className}`}
    >
      {children}
    </button>
  );
}
