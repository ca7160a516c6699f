// What this tab keeps of a merge (session storage): the offer the profile hands to /duplicated
// (`fuzzion_payload`, the spec's key), and the outcome of a finished one, which Back and reload show
// again instead of an offer already spent.
import type { FuzzionIntent } from '../../contract/fuzzion.ts';
import type { FuzzionMemory, FuzzionResult } from '../../machines/fuzzion.ts';
import { flowMemory, readJson } from './storage.ts';

const OFFER_KEY = 'fuzzion_payload';
const RESULT_KEY = 'fuzzion_result';
const INTENT_KEY = 'fuzzion_intent';

export const offerMemory = flowMemory<string>(OFFER_KEY);
export const resultMemory = flowMemory<FuzzionResult>(RESULT_KEY);
export const intentMemory = flowMemory<FuzzionIntent>(INTENT_KEY);

/** What the merge screen starts from. */
export function storedFuzzion(): FuzzionMemory {
  return {
    payload: readJson<string>('sessionStorage', OFFER_KEY),
    result: readJson<FuzzionResult>('sessionStorage', RESULT_KEY),
    intent: readJson<FuzzionIntent>('sessionStorage', INTENT_KEY),
  };
}

/** A new offer: the profile found a duplicate. Any earlier outcome and choice are forgotten. */
export function keepOffer(payload: string): void {
  resultMemory.keep(null);
  intentMemory.keep(null);
  offerMemory.keep(payload);
}
