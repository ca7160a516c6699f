// The entry. Where the page came with its screen drawn (src/prerender.tsx), the browser paints it
// before any of the app's modules is asked for: the page asks for this entry once it is painted
// (server/spa/page.ts). The entry (a few KB) holds a submission of the drawn form or a click on one
// of its links, makes sure of the paint, then starts the preloads the page listed for it and the app.
import { AFTER_PAINT_ID } from '../contract/page.ts';
import { PRERENDERED_ATTRIBUTE, holdDrawnActions } from './app/takeOver.ts';
import './styles.css';

/** Once the drawn screen is on the screen: the browser's first contentful paint (its presentation,
 * which comes after the frame's animation callbacks), or the next frame where paints are not timed.
 * At once in a tab that paints nothing (opened in the background), or that is hidden meanwhile. */
const painted = () =>
  new Promise<void>((resolve) => {
    if (document.visibilityState === 'hidden') return resolve();
    document.addEventListener('visibilitychange', resolve as () => void, { once: true });
    if (!PerformanceObserver.supportedEntryTypes.includes('paint'))
      return requestAnimationFrame(() => setTimeout(resolve, 0));
    new PerformanceObserver((entries) => {
      if (entries.getEntriesByName('first-contentful-paint').length) resolve();
    }).observe({ type: 'paint', buffered: true });
  });

if (document.querySelector(`[${PRERENDERED_ATTRIBUTE}]`)) {
  holdDrawnActions(document.getElementById('root')!);
  await painted();
  // The app's modules, held back by the page until the drawn screen is painted.
  const preloads = document.getElementById(AFTER_PAINT_ID) as HTMLTemplateElement | null;
  if (preloads) document.head.append(preloads.content);
}
await import('./app/start.tsx');
