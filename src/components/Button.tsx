// The one button of the app: primary (the step's action), secondary (back, skip, copy…) and
// danger (delete). `loading` makes it refuse presses (it cannot be pressed twice), marks it busy and
// shows a spinner before its label, which it keeps, and so its name. A waiting button stays
// focusable (aria-disabled, not disabled): the focus a keyboard user put on it stays there, rather
// than falling to the page while it waits.
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
  onClick,
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
      disabled={disabled}
      aria-disabled={loading || undefined}
      aria-busy={loading || undefined}
      // A press while it waits does nothing, a form's submission included.
      onClick={loading ? (event) => event.preventDefault() : onClick}
      className={`btn btn-${variant} ${size ? 'btn-sm' : ''} ${full ? 'w-full' : ''} ${className}`}
    >
      {loading && <Spinner />}
      {children}
    </button>
  );
}

/** What a waiting button shows before its label: seen waiting, not only heard (aria-busy); still
 * for those who ask for less motion. */
export function Spinner() {
  return (
    <span
      aria-hidden="true"
      data-testid="button-spinner"
      className="mr-2 inline-block h-4 w-4 shrink-0 animate-spin rounded-full border-2 border-current border-t-transparent align-[-2px] motion-reduce:animate-none"
    />
  );
}
