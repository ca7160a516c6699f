// The entry. Where the page came with its screen drawn (src/prerender.tsx), the browser paints it
// before the app's modules run; they were preloaded meanwhile (server/spa/page.ts), so the app
// starts one frame later, not one download later.
import { PRERENDERED_ATTRIBUTE, holdDrawnSubmit } from './app/takeOver.ts';
import './styles.css';

/** After the next frame is painted; at once in a tab that paints nothing (opened in the background). */
const painted = () => new Promise<void>((resolve) => {
  if (document.visibilityState === 'hidden') resolve();
  else requestAnimationFrame(() => setTimeout(resolve, 0));
});

if (document.querySelector(`[${PRERENDERED_ATTRIBUTE}]`)) {
  holdDrawnSubmit(document.getElementById('root')!);
  await painted();
}
await import('./app/start.tsx');
