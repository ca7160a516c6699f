// Links inside the app: real <a href> elements (open in a new tab, copy the address) whose plain
// clicks push the path onto the history; RouteSync then tells the root machine, which decides.
import type { AnchorHTMLAttributes, MouseEvent, ReactNode } from 'react';
import { isPlainClick } from './clicks.ts';
import { browserHistory, useLocation } from './history.ts';

type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & { to: string; children?: ReactNode };

function follow(event: MouseEvent<HTMLAnchorElement>, to: string): void {
  if (event.defaultPrevented || !isPlainClick(event, event.currentTarget)) return;
  event.preventDefault();
  // Following a link to the screen already shown adds no history entry.
  const here = browserHistory.location();
  if (`${here.pathname}${here.search}${here.hash}` === to) browserHistory.replace(to);
  else browserHistory.push(to);
}

export function Link({ to, onClick, ...rest }: LinkProps) {
  return (
    <a
      {...rest}
      href={to}
      onClick={(event) => {
        onClick?.(event);
        follow(event, to);
      }}
    />
  );
}

type NavLinkProps = Omit<LinkProps, 'className'> & { className: (state: { isActive: boolean }) => string };

/** A link that knows whether it points at the current screen (aria-current="page"). */
export function NavLink({ to, className, ...rest }: NavLinkProps) {
  const { pathname } = useLocation();
  const isActive = pathname === to || pathname.startsWith(`${to}/`);
  return <Link {...rest} to={to} aria-current={isActive ? 'page' : undefined} className={className({ isActive })} />;
}
