// What the sections record for the goals table and the prose of docs/benchmarks.md.
import type { SelfTime } from './cpu-profile.ts';
import type { ReplayOptions, ReplayResult } from './replay.ts';
import type { WrkResult } from './wrk.ts';

/** What the goals table reads, filled by the sections that ran. */
export type Results = {
  distinct: { workload: string; clients: number; anvil: WrkResult; bare: WrkResult; gateway: WrkResult }[];
  cacheHit: { clients: number; floor: WrkResult; hit: WrkResult }[];
  replay?: { options: ReplayOptions; nginx: Replayed; portico: Replayed; porticoHead: Replayed };
  stores?: { embedded: WrkResult; shared: WrkResult; workers: WrkResult };
  profile?: {
    workload: string;
    clients: number;
    busyPercent: number;
    functions: SelfTime[];
    files: { file: string; percent: number }[];
    bare: { busyPercent: number; functions: SelfTime[] };
  };
  skipped: string[];
};
export type Replayed = ReplayResult & {
  upstreamRequests: number;
  upstreamCalls: number;
  upstreamMethods: Record<string, number>;
};
