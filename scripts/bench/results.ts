// What the sections record for the goals table and the prose of docs/benchmarks.md.
import type { SelfTime } from './cpu-profile.ts';
import type { ReplayOptions, ReplayResult } from './replay.ts';
import type { WrkResult } from './wrk.ts';

/** The traffic section: broadcast, eth_getLogs in parts, a subscription's gap (sections/traffic.ts). */
export type TrafficResults = {
  broadcast: { one: number[]; three: number[]; p50One: number; p50Three: number };
  /** One run per density of logs: a common answer, and one near `maxResponseBytes`. */
  logs: {
    every: number;
    growth: number[];
    answerBytes: number;
    logs: number;
    maxResponseBytes: number;
    ms: number[];
  }[];
  gap: { ms: number[] };
  seconds: number;
};

/** What the goals table reads, filled by the sections that ran. */
export type Results = {
  distinct: { workload: string; clients: number; anvil: WrkResult; bare: WrkResult; gateway: WrkResult }[];
  cacheHit: { clients: number; floor: WrkResult; hit: WrkResult }[];
  replay?: {
    options: ReplayOptions;
    rounds: number;
    nginx: ReplayedRounds;
    bare: ReplayedRounds;
    portico: ReplayedRounds;
    porticoPolled: ReplayedRounds;
    porticoHead: ReplayedRounds;
  };
  /** Medians of the alternated rounds, and the rounds (round i of each ran back to back). */
  stores?: {
    embedded: WrkResult;
    shared: WrkResult;
    workers: WrkResult;
    rounds: { embedded: WrkResult; shared: WrkResult }[];
  };
  profile?: {
    workload: string;
    clients: number;
    busyPercent: number;
    functions: SelfTime[];
    files: { file: string; percent: number }[];
    bare: { busyPercent: number; functions: SelfTime[] };
    /** CPU µs per request by stage (sections/profile.ts STAGES) of each profiled run. */
    stages: {
      miss: Record<string, number>;
      bare: Record<string, number>;
      hit: Record<string, number>;
      floor: Record<string, number>;
    };
  };
  traffic?: TrafficResults;
  skipped: string[];
};
export type Replayed = ReplayResult & {
  upstreamRequests: number;
  upstreamCalls: number;
  upstreamMethods: Record<string, number>;
};

/** A target's replay rounds as one figure each (the median round's), and the rounds themselves. */
export type ReplayedRounds = Replayed & { rounds: Replayed[] };
