// What the server wrote into the page when it sent it (contract/schemas.ts `Boot`), so that the
// first screen waits on no request. Each part is taken once: a later check (the maintenance page's
// retry, a session restored after signing in) asks the server again.
import * as v from 'valibot';
import { apiFailure, type ApiFailure } from '../../contract/api.ts';
import { BOOT_ELEMENT_ID } from '../../contract/constants.ts';
import { Boot, type AppConfig } from '../../contract/baseSchemas.ts';

function read(): Boot | null {
  // Drawn ahead at build time (scripts/prerender.ts), there is no page yet.
  if (typeof document === 'undefined') return null;
  const text = document.getElementById(BOOT_ELEMENT_ID)?.textContent;
  if (!text) return null; // the development server sends the page as it is
  try {
    const parsed = v.safeParse(Boot, JSON.parse(text));
    return parsed.success ? parsed.output : null;
  } catch {
    return null;
  }
}

const boot = read();
let configTaken = false;
let sessionTaken = false;

/** The locale the server drew the page in, if it did. */
export const bootLocale = boot?.locale ?? null;

/** The config the page came with, the first time it is asked for. */
export function takeInlinedConfig(): AppConfig | null {
  if (configTaken) return null;
  configTaken = true;
  return boot?.config ?? null;
}

/** The first time the session is asked for: when the browser sent no session cookie with the page,
 * the answer GET /api/user would give (401), without asking. Otherwise null: ask. */
export function takeKnownAbsentSession(): ApiFailure | null {
  if (sessionTaken) return null;
  sessionTaken = true;
  return boot && !boot.sessionCookie ? apiFailure(401, { code: 'unauthorized' }) : null;
}

/** The application an authorisation request is signing the visitor in to, if the page says. */
export const signingInTo = boot?.signingInTo ?? null;

/** What the authorisation request this page belongs to asks of the screens (its language, its login
 * hint), if the page says. */
export const authorisationRequest = boot?.authorisationRequest ?? null;
