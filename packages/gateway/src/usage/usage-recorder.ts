export type UsageRow = {
  keyId: string;
  day: string;
  method: string;
  /** Every answered request, refused or not. */
  requests: number;
  credits: number;
  /**
   * Of `requests`, those answered with an error that cost nothing (refused parameters, the node's
   * refusals, upstream failures): the charged calls are `requests - refused`, and the average
   * price of a method is `credits / (requests - refused)`.
   */
  refused: number;
};
export type ErrorRow = { keyId: string; day: string; code: number; count: number };

export interface UsageRecorder {
  /**
   * Counts one answered request: its method, the credits it cost and its error code, if any (an
   * error that cost nothing counts as refused).
   */
  record(keyId: string, method: string, credits: number, errorCode?: number, now?: number): void;
  usage(filter: { keyId?: string; fromDay?: string }): Promise<UsageRow[]>;
  errors(filter: { keyId?: string; fromDay?: string }): Promise<ErrorRow[]>;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** An answer counted apart from the charged calls: an error that cost nothing. */
export const isRefused = (credits: number, errorCode: number | undefined) =>
  errorCode !== undefined && credits === 0 ? 1 : 0;
