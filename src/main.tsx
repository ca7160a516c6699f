import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createRootActor, type Navigator } from './app/actor.ts';
import { App } from './app/App.tsx';
import { chooseLocale, startI18n, storedLocale } from './i18n.ts';
import { applyVariantLook, variant } from './variant.ts';
import './styles.css';

async function inspector() {
  // The XState inspector, in development only and on request (?inspect).
  if (!import.meta.env.DEV || !new URLSearchParams(window.location.search).has('inspect')) return undefined;
  const { createBrowserInspector } = await import('@statelyai/inspect');
  return createBrowserInspector().inspect;
}

applyVariantLook();
// The session starts (GET /api/config, then /api/user) while the locale's strings load: the two
// requests run side by side, and the first screen renders once the strings are there.
const strings = startI18n(chooseLocale(variant, navigator.languages, storedLocale()));
const routeNavigator: Navigator = { current: null, pending: null };
const actor = createRootActor(routeNavigator, await inspector());
actor.start();
await strings;

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App actor={actor} navigator={routeNavigator} />
  </StrictMode>,
);
