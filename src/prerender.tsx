// Build time only (scripts/prerender.ts): the public screens as a visitor without a session first
// sees them, drawn by the app itself once its root machine has settled, per variant and language.
// The server sends the one that fits inside the page (server/spa/shell.ts), so the screen paints
// before any script runs; the app then takes over (src/app/takeOver.ts). This module is loaded once
// per variant, the host set first (src/variant.ts reads it when loaded).
import i18next from 'i18next';
import { renderToString } from 'react-dom/server';
import { createActor, fromPromise, waitFor } from 'xstate';
import { apiFailure } from '../contract/api.ts';
import type { ErrorCode } from '../contract/errors.ts';
import type { Locale } from '../contract/constants.ts';
import type { AppConfig, UserProfile } from '../contract/baseSchemas.ts';
import { rootMachine } from '../machines/root.ts';
import type { RootActor } from './shell/context.ts';
import { StaticRouter } from 'react-router';
import { AppAt, isSettling } from './app/App.tsx';
import { screenTitle } from './app/ScreenFocus.tsx';
import { PRERENDERED_ATTRIBUTE } from './app/takeOver.ts';
import { startI18n } from './i18n.ts';
import { variant } from './variant.ts';

export { variant };

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#x27;': "'",
  '&#39;': "'",
};

/** The text of the screen's heading in drawn HTML, as the tab's title names it (ScreenFocus). */
function headingOf(html: string): string | null {
  const inner = /<main[^>]*>[\s\S]*?<h1[^>]*>([\s\S]*?)<\/h1>/.exec(html)?.[1];
  return inner === undefined
    ? null
    : inner.replace(/<[^>]+>/g, '').replace(/&[#\w]+;/g, (entity) => ENTITIES[entity] ?? entity);
}

/** The screen at `path` for a visitor without a session, in `locale`, its tab title and the page's
 * description (the sign-in's subtitle, which says what the account is for). */
export async function draw(
  path: string,
  locale: Locale,
  config: AppConfig,
): Promise<{ html: string; title: string; description: string }> {
  await startI18n(locale);
  // The session as the browser finds it with this page: the config inside it, no session cookie.
  const actor = createActor(
    rootMachine.provide({
      actors: {
        loadConfig: fromPromise(async () => config),
        fetchUser: fromPromise<UserProfile>(async () => {
          throw apiFailure(401, { code: 'unauthorized' } satisfies { code: ErrorCode });
        }),
      },
    }),
    { input: { storedAccount: null, storedTarget: null, location: { path, search: '' } } },
  ) as RootActor;
  actor.start();
  await waitFor(actor, (s) => !isSettling(s));
  const html = renderToString(
    <div {...{ [PRERENDERED_ATTRIBUTE]: '' }} className="contents">
      <StaticRouter location={path}>
        <AppAt actor={actor} navigator={{ current: null, pending: null }} settling={false} />
      </StaticRouter>
    </div>,
  );
  actor.stop();
  return { html, title: screenTitle(headingOf(html), i18next.t('brand')), description: i18next.t('login.subtitle') };
}
