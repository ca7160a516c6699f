// A way on, as a card in a list of them: where it leads, and what for.
import { Link } from 'react-router';

export function OptionLink({
  to,
  external = false,
  title,
  text,
  className = '',
  testId,
}: {
  to: string;
  /** Away from the app: the browser follows it. */
  external?: boolean;
  title: string;
  text: string;
  className?: string;
  testId?: string;
}) {
  const look = `block rounded-lg border border-slate-300 p-4 hover:border-brand hover:bg-brand-light ${className}`;
  const body = (
    <>
      <span className="block font-semibold text-brand-dark">{title}</span>
      <span className="mt-1 block text-sm text-slate-700">{text}</span>
    </>
  );
  return external ? (
    <a href={to} className={look} data-testid={testId}>
      {body}
    </a>
  ) : (
    <Link to={to} className={look} data-testid={testId}>
      {body}
    </Link>
  );
}
