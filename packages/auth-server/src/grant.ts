/** What a session with MFA on may do on the MFA calls, kept (sealed) beside the session. */
export interface Grant {
  userId: string;
  keyVerifier: string;
  /** The login's network (absent in grants made before keys were separated by network). */
  network?: string;
}
