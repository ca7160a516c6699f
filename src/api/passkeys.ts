// The browser's side of a passkey (WebAuthn, through @simplewebauthn/browser): making one for the
// account and signing a challenge with one. What the browser answers is sent as the server's
// schema takes it (contract/schemas.ts PasskeyCredential), each field picked, so an extension's
// output the server never asked for cannot make the request malformed. A failure is the browser's
// own error (NotAllowedError, InvalidStateError…), which the flows read (machines/failures.ts
// passkeyProblemOf).
import {
  browserSupportsWebAuthn,
  startAuthentication,
  startRegistration,
  WebAuthnAbortService,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/browser';
import { TokenAnswer } from '../../contract/baseSchemas.ts';
import { PasskeyAccount, PasskeyOptions, type PasskeyCredential } from '../../contract/schemas.ts';
import { api, parsed } from './client.ts';

/** This browser cannot use passkeys at all: none is offered. */
export const noWebAuthn = () => !browserSupportsWebAuthn();

/** The answer as the server's schema takes it. */
function credentialOf(answer: RegistrationResponseJSON | AuthenticationResponseJSON): PasskeyCredential {
  const { response } = answer;
  const rk = answer.clientExtensionResults.credProps?.rk;
  const fields = {
    clientDataJSON: response.clientDataJSON,
    ...('attestationObject' in response
      ? {
          attestationObject: response.attestationObject,
          authenticatorData: response.authenticatorData,
          transports: response.transports,
          publicKeyAlgorithm: response.publicKeyAlgorithm,
          publicKey: response.publicKey,
        }
      : {
          authenticatorData: response.authenticatorData,
          signature: response.signature,
          userHandle: response.userHandle,
        }),
  };
  return {
    id: answer.id,
    rawId: answer.rawId,
    type: 'public-key',
    ...(answer.authenticatorAttachment ? { authenticatorAttachment: answer.authenticatorAttachment } : {}),
    clientExtensionResults: rk === undefined ? {} : { credProps: { rk } },
    // Absent values are left out, as JSON would.
    response: Object.fromEntries(
      Object.entries(fields).filter(([, value]) => value !== undefined),
    ) as PasskeyCredential['response'],
  };
}

/** Leaving the screen ends the browser's question too. */
function cancelledBy(signal: AbortSignal) {
  signal.addEventListener('abort', () => WebAuthnAbortService.cancelCeremony(), { once: true });
}

/** Makes a passkey with the server's creation options; `quietly`, by the password manager the person
 * just signed in with, with no dialog (WebAuthn's conditional create), or not at all. */
export async function createPasskey(
  options: PasskeyOptions,
  signal: AbortSignal,
  quietly = false,
): Promise<PasskeyCredential> {
  cancelledBy(signal);
  const made = await startRegistration({
    optionsJSON: options as unknown as PublicKeyCredentialCreationOptionsJSON,
    useAutoRegister: quietly,
  });
  return credentialOf(made);
}

/** Signs the server's challenge with one of the account's passkeys. */
export async function askPasskey(options: PasskeyOptions, signal: AbortSignal): Promise<PasskeyCredential> {
  cancelledBy(signal);
  const signed = await startAuthentication({
    optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON,
  });
  return credentialOf(signed);
}

/** What this browser can do with passkeys for this host: `signIn` (the button), `autofill` (the
 * username field's suggestions), `quietCreate` (a passkey made by the password manager right after
 * a password sign-in) and `signals` (telling the password manager what the server no longer takes).
 * The Luxembourg host uses the Belgian host's passkeys, which takes related origins: where the
 * browser has no such feature, nothing is offered there. */
export type PasskeySupport = { signIn: boolean; autofill: boolean; quietCreate: boolean; signals: boolean };

export const NO_PASSKEYS: PasskeySupport = { signIn: false, autofill: false, quietCreate: false, signals: false };

let support: Promise<PasskeySupport> | null = null;
let answered: PasskeySupport | null = null;

/** Asked once per page: the browser's answer does not change while it is open. */
export function passkeySupport(variant: 'be' | 'lu'): Promise<PasskeySupport> {
  support ??= (async (): Promise<PasskeySupport> => {
    if (noWebAuthn()) return NO_PASSKEYS;
    const capabilities: Record<string, boolean | undefined> =
      typeof PublicKeyCredential.getClientCapabilities === 'function'
        ? await PublicKeyCredential.getClientCapabilities().catch(() => ({}))
        : {};
    if (variant === 'lu' && capabilities.relatedOrigins !== true) return NO_PASSKEYS;
    const autofill =
      capabilities.conditionalGet ??
      (typeof PublicKeyCredential.isConditionalMediationAvailable === 'function' &&
        (await PublicKeyCredential.isConditionalMediationAvailable().catch(() => false)));
    return {
      signIn: true,
      autofill: autofill === true,
      quietCreate: capabilities.conditionalCreate === true,
      signals: capabilities.signalUnknownCredential === true,
    };
  })().then((can) => (answered = can));
  return support;
}

/** No passkey can be made here: no WebAuthn, or, as `passkeySupport` answered (asked first, by a
 * flow that waits for it), none would work on this host. */
export const noPasskeyHere = () => noWebAuthn() || answered?.signIn === false;

/** The relying party's id in a request's options (the Belgian host, on both variants). */
export const rpIdOf = (options: PasskeyOptions) => (typeof options.rpId === 'string' ? options.rpId : '');

/** Signs a sign-in challenge from the username field's suggestions (WebAuthn's conditional request):
 * nothing shows until the person focuses the field and picks a passkey there. */
export async function autofillPasskey(options: PasskeyOptions, signal: AbortSignal): Promise<PasskeyCredential> {
  cancelledBy(signal);
  const signed = await startAuthentication({
    optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON,
    useBrowserAutofill: true,
    // The field is React's: it may be drawn a moment after the request starts.
    verifyBrowserAutofillInput: false,
  });
  return credentialOf(signed);
}

/** WebAuthn's interface, where the browser has one. */
const webAuthn = () => (typeof PublicKeyCredential === 'undefined' ? null : PublicKeyCredential);

/** Tells the password manager that the server does not know this passkey (any more): it stops
 * suggesting it. Where the browser cannot, nothing. */
export function signalUnknownPasskey(rpId: string, credentialId: string): void {
  const signal = webAuthn()?.signalUnknownCredential;
  if (typeof signal !== 'function') return;
  void signal.call(PublicKeyCredential, { rpId, credentialId }).catch(() => {});
}

/** Tells the password manager which of the account's passkeys the server still takes (after one was
 * deleted): the others stop being suggested. */
export function signalAcceptedPasskeys(rpId: string, userId: string, credentialIds: string[]): void {
  const signal = webAuthn()?.signalAllAcceptedCredentials;
  if (typeof signal !== 'function') return;
  void signal
    .call(PublicKeyCredential, {
      rpId,
      userId,
      allAcceptedCredentialIds: credentialIds,
    })
    .catch(() => {});
}

/** Tells the password manager the account's current name (after it changed). */
export function signalPasskeyUser(rpId: string, userId: string, name: string, displayName: string): void {
  const signal = webAuthn()?.signalCurrentUserDetails;
  if (typeof signal !== 'function') return;
  void signal.call(PublicKeyCredential, { rpId, userId, name, displayName }).catch(() => {});
}

/** POST /passkey/options: a sign-in challenge for any of this site's passkeys (its cookie comes with it). */
export const passkeySignInOptions = () => parsed(PasskeyOptions, () => api.post('passkey/options').json());

/** POST /passkey/sign-in: a passkey's signed answer, which opens the session. */
export const signInWithPasskey = (input: { credential: PasskeyCredential; clientId?: string | null }) =>
  parsed(TokenAnswer, () =>
    api
      .post('passkey/sign-in', {
        json: { credential: input.credential, ...(input.clientId ? { client_id: input.clientId } : {}) },
      })
      .json(),
  );

/** A signed passkey answer, with the relying party it was for (machines/login.ts PasskeyAnswer). */
type Answer = { credential: PasskeyCredential; rpId: string };

/** The button: a challenge, then the browser's dialog. */
export async function askSignInPasskey(signal: AbortSignal): Promise<Answer> {
  const options = await passkeySignInOptions();
  return { credential: await askPasskey(options, signal), rpId: rpIdOf(options) };
}

/** A round of suggestions that ends this soon is not the browser's refusal but our own (a renewal,
 * or the form left): below it, a refusal stops the suggestions instead of asking again at once. */
const SHORTEST_ROUND_MS = 1_000;
/** A challenge is renewed this long before it expires, so a pick never meets an expired one. */
const RENEW_AHEAD_MS = 30_000;

/** The username field's passkey suggestions, while the sign-in form is open (until `signal`): says
 * first what this browser can do (`tell.support`), then keeps a conditional request open on a live
 * challenge (renewed before it expires, and at once when the tab comes back after it did). A pick
 * comes back signed (`tell.picked`). */
export async function offerPasskeys(
  variant: 'be' | 'lu',
  signal: AbortSignal,
  tell: { support: (can: PasskeySupport) => void; picked: (answer: Answer) => void },
): Promise<void> {
  const can = await passkeySupport(variant);
  if (signal.aborted) return;
  tell.support(can);
  if (!can.autofill) return;
  while (!signal.aborted) {
    let options: PasskeyOptions;
    try {
      options = await passkeySignInOptions();
    } catch {
      // No challenge (offline, throttled): no suggestions; the button and the password still work.
      return;
    }
    if (signal.aborted) return;
    const round = new AbortController();
    const endRound = () => round.abort();
    const lifetime = (typeof options.timeout === 'number' ? options.timeout : 300_000) - RENEW_AHEAD_MS;
    const started = Date.now();
    const timer = setTimeout(endRound, lifetime);
    // A hidden tab's timers are held back: its return checks the challenge's age itself.
    const onVisible = () => {
      if (document.visibilityState === 'visible' && Date.now() - started >= lifetime) endRound();
    };
    document.addEventListener('visibilitychange', onVisible);
    signal.addEventListener('abort', endRound, { once: true });
    try {
      const credential = await autofillPasskey(options, round.signal);
      if (!signal.aborted) tell.picked({ credential, rpId: rpIdOf(options) });
      return;
    } catch {
      // Refused by the browser (a dialog dismissed after a pick): a new round, unless it refuses at once.
      if (!round.signal.aborted && Date.now() - started < SHORTEST_ROUND_MS) return;
    } finally {
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisible);
      signal.removeEventListener('abort', endRound);
    }
  }
}

/** Tells the password manager what changed on the account (WebAuthn's Signal API, where the browser
 * has it): after a deletion, the passkeys the server still takes (the others stop being suggested);
 * after a change of name or address, the names its passkeys show. Never in the way: a failure is
 * left unsaid, as the change itself succeeded. */
export async function tellPasswordManager(change: 'deleted' | 'renamed', variant: 'be' | 'lu'): Promise<void> {
  if (!(await passkeySupport(variant)).signals) return;
  const account = await parsed(PasskeyAccount, () => api.get('passkey/account').json()).catch(() => null);
  if (!account) return;
  if (change === 'deleted') signalAcceptedPasskeys(account.rpId, account.userId, account.credentialIds);
  else if (account.credentialIds.length > 0)
    signalPasskeyUser(account.rpId, account.userId, account.name, account.displayName);
}
