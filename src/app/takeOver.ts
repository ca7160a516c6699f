// Taking over a screen the server drew ahead of the script (src/prerender.tsx): what the person
// typed into it meanwhile, and the field they were in, carry over into the app's own screen.
import type { RootActor } from './actor.ts';

/** The attribute the drawn screen carries on its outermost element. */
export const PRERENDERED_ATTRIBUTE = 'data-prerendered';

/** Whether the person submitted the drawn sign-in before the app was there. */
let submittedEarly = false;

/** Holds a submission of the drawn form until the app can make it (the entry calls it at once): a
 * fast person on a slow phone would otherwise post the form to the page itself. */
export function holdDrawnSubmit(container: HTMLElement): void {
  container.querySelector(`[${PRERENDERED_ATTRIBUTE}] form`)?.addEventListener('submit', (event) => {
    event.preventDefault();
    submittedEarly = true;
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
    /** Back into the field the person was typing in, once the app's screen is there. */
    refocus(into: HTMLElement) {
      if (focused) into.querySelector<HTMLInputElement>(`input[name="${focused}"]`)?.focus();
    },
  };
}
