// The app: the root machine, the locale, and the React tree, which takes over a screen the page
// came with (src/main.tsx starts it).
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { flushSync } from 'react-dom';
import { waitFor } from 'xstate';
import i18next from 'i18next';
import { VARIANT_LOCALES, chooseLocale } from '../../contract/constants.ts';
import { createRootActor, requestNavigation, type Navigator } from './actor.ts';
import { App, isSettling } from './App.tsx';
import { drawnScreen } from './takeOver.ts';
import { actedEarly } from './RouteSync.tsx';
import { startI18n, storedLocale, switchLocale } from '../i18n.ts';
import { applyVariantLook, variant } from '../variant.ts';
import { authorisationRequest } from '../shell/boot.ts';

/** Where ?inspect=… may stream the flows: a WebSocket server on this machine (a crafted link must
 * not send a person's flow to someone else's server). */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
function loopbackWebSocket(value: string): string | null {
  try {
    const url = new URL(value);
    return url.protocol === 'ws:' && LOOPBACK.has(url.hostname) && !url.username && !url.password ? url.href : null;
  } catch {
    return null;
  }
}

async function inspector() {
  // The XState inspector, in development only and on request (README, "Watching flows in the
  // inspector"): ?inspect opens Stately's hosted inspector in a new window; ?inspect=ws://localhost:PORT
  // streams the inspection events to a WebSocket server on this machine instead.
  if (!import.meta.env.DEV) return undefined;
  const requested = new URLSearchParams(window.location.search).get('inspect');
  if (requested === null) return undefined;
  if (requested === '') {
    const { createBrowserInspector } = await import('@statelyai/inspect');
    return createBrowserInspector().inspect;
  }
  const url = loopbackWebSocket(requested);
  if (!url) {
    console.warn(`?inspect=${requested} refused: only ws:// URLs on localhost, 127.0.0.1 or [::1] are inspected.`);
    return undefined;
  }
  const { createWebSocketInspector } = await import('@statelyai/inspect');
  return createWebSocketInspector({ url }).inspect;
}

applyVariantLook();
// The session starts (the config and whether there is a session come with the page; otherwise
// GET /api/config, then /api/user) while the locale's strings load, preloaded by the page.
// An application's request may name the language (ui_locales): ahead of the browser's, not of a
// language the person chose here.
const requested = authorisationRequest?.locale;
const strings = startI18n(chooseLocale(variant, requested ? [requested] : navigator.languages, storedLocale()));
const routeNavigator: Navigator = { current: null, pending: null };
const actor = createRootActor(routeNavigator, await inspector());
actor.start();
await strings;

const container = document.getElementById('root')!;
// A public screen the server drew before any script ran stays until the app can draw it too: once
// the session is known (at once, from what the page carried), so no "loading" replaces it.
const drawn = drawnScreen(container);
const app = createRoot(container);
const tree = (
  <StrictMode>
    <App actor={actor} navigator={routeNavigator} />
  </StrictMode>
);
if (drawn) {
  await waitFor(actor, (s) => !isSettling(s));
  await drawn.released();
  drawn.fill(actor);
  flushSync(() => app.render(tree));
  drawn.refocus(container);
  drawn.submitIfAsked(actor);
  drawn.followIfAsked((href) => {
    actedEarly();
    requestNavigation(routeNavigator, href);
  });
  // A language chosen in the drawn switch before the app was there is switched to now.
  const chosen = VARIANT_LOCALES[variant].locales[drawn.language?.split('_')[0] ?? ''];
  if (drawn.language === chosen && chosen !== i18next.language) void switchLocale(chosen, true);
} else {
  app.render(tree);
}
