// What a screen change means for a person who does not see it: the tab's title names the screen
// (its heading, so it is in the language shown, "Sign in · Tessera"), and focus moves to the new
// screen, on its first field where it has one for typing (`data-autofocus`), else on its heading.
// The first screen of a visit moves focus only to a field for typing (the sign-in's address).
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';

const FIND_FOR_MS = 3000;

/** A tab's title: the screen's heading, then the brand ("Sign in · Tessera"). */
export function screenTitle(heading: string | null | undefined, brand: string): string {
  const text = heading?.trim();
  return text && text !== brand ? `${text} · ${brand}` : brand;
}

function heading(): HTMLElement | null {
  return document.querySelector<HTMLElement>('main h1');
}

export function ScreenFocus({ location }: { location: string }) {
  const { t } = useTranslation();
  const first = useRef(true);
  const brand = t('brand');

  // The title follows the heading, whenever it changes (a step, a language).
  useEffect(() => {
    const update = () => {
      const title = screenTitle(heading()?.textContent, brand);
      if (document.title !== title) document.title = title;
    };
    update();
    const observer = new MutationObserver(update);
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  }, [brand]);

  useEffect(() => {
    const arriving = first.current;
    first.current = false;
    // A lazy screen may take a moment to arrive: look for it a little while.
    const until = Date.now() + FIND_FOR_MS;
    let frame = 0;
    const look = () => {
      // Arriving on a screen drawn ahead of the script, the person may already be typing: stay there.
      if (arriving && document.activeElement?.matches('main input, main textarea, main select')) return;
      const field = document.querySelector<HTMLElement>('main [data-autofocus]');
      const target = field ?? (arriving ? null : heading());
      if (target && !target.closest('[aria-busy="true"]')) {
        if (target.tagName === 'H1' && !target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
        target.focus({ preventScroll: false });
        return;
      }
      if (Date.now() < until) frame = requestAnimationFrame(look);
    };
    frame = requestAnimationFrame(look);
    return () => cancelAnimationFrame(frame);
  }, [location]);

  return null;
}

/** The first link of every page: past the header, straight to the screen. */
export function SkipLink() {
  const { t } = useTranslation();
  return (
    <a
      href="#main"
      className="sr-only focus:not-sr-only focus:fixed focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-4 focus:py-3 focus:text-brand-dark focus:shadow"
    >
      {t('common.skip')}
    </a>
  );
}
