// What passkey logins and the passkey factor share: this service as the WebAuthn relying party.

/** Signature algorithms a new passkey may use: ES256, EdDSA, RS256. */
export const PASSKEY_ALGORITHMS = [-7, -8, -257];

/** This service as the WebAuthn relying party: RP ID and origin from its public URL. */
export function relyingParty(sdkUrl: string): { rpID: string; origin: string } {
  const url = new URL(sdkUrl);
  return { rpID: url.hostname, origin: url.origin };
}
