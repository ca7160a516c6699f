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
import type { PasskeyCredential, PasskeyOptions } from '../../contract/schemas.ts';

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

/** Makes a passkey with the server's creation options. */
export async function createPasskey(options: PasskeyOptions, signal: AbortSignal): Promise<PasskeyCredential> {
  cancelledBy(signal);
  const made = await startRegistration({ optionsJSON: options as unknown as PublicKeyCredentialCreationOptionsJSON });
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
