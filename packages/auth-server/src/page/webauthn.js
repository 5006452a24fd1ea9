// WebAuthn through the browser's own `navigator.credentials` API: the service's JSON options (the
// shape `@simplewebauthn/server` issues, WebAuthn Level 3's JSON) to what the browser takes, and its
// credentials back to JSON. The page is plain ES modules served as they are (no build step), so
// `@simplewebauthn/browser`, shipped for bundlers, is not used. Used by the passkey login screen
// and the passkey factor.

/** base64url (no padding) to bytes. */
export function fromB64url(value) {
  const b64 = value.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** Bytes (an ArrayBuffer or a view) to base64url without padding. */
export function toB64url(buffer) {
  const bytes = ArrayBuffer.isView(buffer)
    ? new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
    : new Uint8Array(buffer);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

const credentialList = (list) => (list ?? []).map((c) => ({ ...c, id: fromB64url(c.id) }));

/** The service's registration options (JSON) as `navigator.credentials.create` takes them. */
export function creationOptions(json) {
  return {
    ...json,
    challenge: fromB64url(json.challenge),
    user: { ...json.user, id: fromB64url(json.user.id) },
    excludeCredentials: credentialList(json.excludeCredentials),
  };
}

/** The service's sign-in options (JSON) as `navigator.credentials.get` takes them. */
export function requestOptions(json) {
  return {
    ...json,
    challenge: fromB64url(json.challenge),
    allowCredentials: credentialList(json.allowCredentials),
  };
}

/** A new credential as JSON for the service (RegistrationResponseJSON). */
export function registrationJson(credential) {
  const response = /** @type {AuthenticatorAttestationResponse} */ (credential.response);
  return {
    id: credential.id,
    rawId: toB64url(credential.rawId),
    type: credential.type,
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
    response: {
      clientDataJSON: toB64url(response.clientDataJSON),
      attestationObject: toB64url(response.attestationObject),
      transports: typeof response.getTransports === 'function' ? response.getTransports() : [],
    },
  };
}

/** A passkey's answer as JSON for the service (AuthenticationResponseJSON). */
export function authenticationJson(credential) {
  const response = /** @type {AuthenticatorAssertionResponse} */ (credential.response);
  return {
    id: credential.id,
    rawId: toB64url(credential.rawId),
    type: credential.type,
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
    response: {
      clientDataJSON: toB64url(response.clientDataJSON),
      authenticatorData: toB64url(response.authenticatorData),
      signature: toB64url(response.signature),
      userHandle: response.userHandle ? toB64url(response.userHandle) : undefined,
    },
  };
}
