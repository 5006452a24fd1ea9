export type UsageRow = { keyId: string; day: string; method: string; requests: number; credits: number };
export type ErrorRow = { keyId: string; day: string; code: number; count: number };

export interface UsageRecorder {
  /** Counts one answered request: its method, the credits it cost and its error code, if any. */
  record(keyId: string, method: string, credits: number, errorCode?: number, now?: number): void;
  usage(filter: { keyId?: string; fromDay?: string }): Promise<UsageRow[]>;
  errors(filter: { keyId?: string; fromDay?: string }): Promise<ErrorRow[]>;
  flush(): Promise<void>;
  close(): Promise<void>;
}
