// Taking over a screen the server drew ahead of the script (src/prerender.tsx): what the person
// typed into it meanwhile, and the field they were in, carry over into the app's own screen.
import type { RootActor } from '../shell/context.ts';
import { ENTRY_THERE, HELD_LINK, HELD_SUBMIT } from '../../contract/page.ts';
import { isPlainClick } from './clicks.ts';

/** The attribute the drawn screen carries on its outermost element. */
export const PRERENDERED_ATTRIBUTE = 'data-prerendered';

/** The longest a press held on the drawn screen delays the app's own (a release the page never saw). */
const PRESS_WAIT_MS = 3000;

/** Whether the person submitted the drawn sign-in before the app was there. */
let submittedEarly = false;
/** The link of the drawn screen the person followed before the app was there, if any. */
let followedEarly: string | null = null;

/** Holds what the person does in the drawn screen until the app can do it (the entry calls it at
 * once): a submission, which would otherwise post the form to the page itself, and a plain click
 * on a link to another of our screens, which would load it anew and lose what was typed. */
export function holdDrawnActions(container: HTMLElement): void {
  // A submission or a link the page's starter held before the entry was there counts as one held here.
  const root = document.documentElement.dataset;
  root[ENTRY_THERE] = '';
  if (HELD_SUBMIT in root) submittedEarly = true;
  followedEarly = root[HELD_LINK] ?? null;
  const drawn = container.querySelector<HTMLElement>(`[${PRERENDERED_ATTRIBUTE}]`);
  drawn?.querySelector('form')?.addEventListener('submit', (event) => {
    event.preventDefault();
    submittedEarly = true;
  });
  drawn?.addEventListener('click', (event) => {
    const link = (event.target as Element).closest('a');
    const href = link?.getAttribute('href');
    if (!link || !href?.startsWith('/') || href.startsWith('//') || !isPlainClick(event, link)) return;
    event.preventDefault();
    followedEarly = href;
  });
}

/** The screen the server drew, if it drew one: read before the app replaces it. */
export function drawnScreen(container: HTMLElement) {
  if (!container.querySelector(`[${PRERENDERED_ATTRIBUTE}]`)) return null;
  const inputs = [...container.querySelectorAll<HTMLInputElement>('input[name]')];
  const typed = inputs.filter((input) => input.value !== '').map((input) => ({ name: input.name, value: input.value }));
  const focused = inputs.find((input) => input === document.activeElement)?.name ?? null;
  // The drawn language switch works as a plain select until the app is there: what it shows then
  // is the language the person chose meanwhile (or the page's own).
  const language = container.querySelector<HTMLSelectElement>('select[name="language"]')?.value ?? null;
  return {
    language,
    /** The sign-in is the screen drawn ahead: its machine takes the typed fields by name. */
    fill(actor: RootActor) {
      const login = actor.getSnapshot().children.login;
      for (const { name, value } of typed) {
        if (login && (name === 'username' || name === 'password')) login.send({ type: 'CHANGE', field: name, value });
      }
    },
    /** The submission held until now is made by the app's own form. */
    submitIfAsked(actor: RootActor) {
      if (submittedEarly) actor.getSnapshot().children.login?.send({ type: 'SUBMIT' });
    },
    /** The link followed until now is followed in the app, with what was typed. */
    followIfAsked(go: (href: string) => void) {
      if (followedEarly) go(followedEarly);
    },
    /** Once no press on the drawn screen is under way: a press whose release fell on the app's
     * screen instead would end on another element, and the browser would click neither. */
    released() {
      if (!container.querySelector(':active')) return Promise.resolve();
      return new Promise<void>((resolve) => {
        // After the release's own click (same task), which the drawn screen holds as any other.
        const done = () => setTimeout(resolve, 0);
        addEventListener('pointerup', done, { capture: true, once: true });
        addEventListener('pointercancel', done, { capture: true, once: true });
        setTimeout(resolve, PRESS_WAIT_MS);
      });
    },
    /** Back into the field the person was typing in, once the app's screen is there. */
    refocus(into: HTMLElement) {
      if (focused) into.querySelector<HTMLInputElement>(`input[name="${focused}"]`)?.focus();
    },
  };
}
