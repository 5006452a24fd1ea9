// Reads a V8 CPU profile (node --cpu-prof) and ranks functions by self time.
import { readFileSync } from 'node:fs';

type ProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
};
export type CpuProfile = { nodes: ProfileNode[]; startTime: number; samples: number[]; timeDeltas: number[] };

/** A profile file as V8 wrote it (read once: both readers below take it parsed). */
export function readProfile(path: string): CpuProfile {
  return JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
}

/**
 * Calls `visit` with each sample's node and duration (µs) taken between `from` and `to` (µs of the
 * monotonic clock, as process.hrtime gives it and V8 stamps its samples): the run measured, not
 * the start-up.
 */
function forEachSample(
  profile: CpuProfile,
  window: { from: number; to: number },
  visit: (node: ProfileNode, delta: number) => void,
) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at >= window.from && at <= window.to) visit(byId.get(id)!, delta);
  });
}

export type SelfTime = { name: string; where: string; percent: number };

/** Where a frame comes from: a file of the repository or a package, node's internals, or native. */
function fileOf(url: string): string {
  if (!url) return '(native)';
  return url.replace(/^file:\/\//, '').replace(/^.*\/(packages|node_modules)\//, '$1/');
}

/**
 * The `top` functions by self time, as a share of the samples that were not idle, counting only
 * the samples taken in `window`.
 */
export function topSelfTime(
  profile: CpuProfile,
  window: { from: number; to: number },
  top = 12,
): { busyPercent: number; functions: SelfTime[]; files: { file: string; percent: number }[] } {
  const time = new Map<string, { name: string; where: string; us: number }>();
  let total = 0;
  let idle = 0;
  const byFile = new Map<string, number>();
  forEachSample(profile, window, ({ callFrame: frame }, delta) => {
    total += delta;
    if (frame.functionName === '(idle)') {
      idle += delta;
      return;
    }
    const file = fileOf(frame.url);
    // tsx compiles the TypeScript sources without line mappings in the profile: their lines say nothing.
    const where = !frame.url ? '' : file.endsWith('.ts') ? file : `${file}:${frame.lineNumber + 1}`;
    byFile.set(file, (byFile.get(file) ?? 0) + delta);
    const key = `${frame.functionName}@${where}`;
    const entry = time.get(key) ?? { name: frame.functionName || '(anonymous)', where, us: 0 };
    entry.us += delta;
    time.set(key, entry);
  });
  if (total === 0) throw new Error(`no samples between ${window.from} and ${window.to}`);
  const busy = total - idle;
  const functions = [...time.values()]
    .sort((a, b) => b.us - a.us)
    .slice(0, top)
    .map(({ name, where, us }) => ({ name, where, percent: (100 * us) / busy }));
  const files = [...byFile.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([file, us]) => ({ file, percent: (100 * us) / busy }));
  return { busyPercent: (100 * busy) / total, functions, files };
}

/** A stage of request handling: a sample belongs to the innermost frame on its stack that matches. */
export type Stage = {
  name: string;
  matches: (frame: { functionName: string; url: string }) => boolean;
  /** Work of the gateway's own (not Node's, V8's or the kernel's). */
  own?: boolean;
};

/**
 * CPU time per stage, µs, between `from` and `to`: each sample goes to the stage of the innermost
 * frame of its stack that a stage matches (so the socket writes inside the answer count as socket
 * writes, not as the answer), or to `other` when none does. Idle samples are left out.
 */
export function stageTimes(
  profile: CpuProfile,
  window: { from: number; to: number },
  stages: readonly Stage[],
): Map<string, number> {
  const parent = new Map<number, ProfileNode>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node);
  // The stage of a node is that of its innermost matching frame: computed once per node.
  const stageOf = new Map<number, string>();
  const stageOfNode = (node: ProfileNode): string => {
    const known = stageOf.get(node.id);
    if (known !== undefined) return known;
    const matched = stages.find((stage) => stage.matches(node.callFrame))?.name;
    const up = parent.get(node.id);
    const stage = matched ?? (up === undefined ? 'other' : stageOfNode(up));
    stageOf.set(node.id, stage);
    return stage;
  };
  const times = new Map<string, number>();
  forEachSample(profile, window, (node, delta) => {
    if (node.callFrame.functionName === '(idle)') return;
    const stage = stageOfNode(node);
    times.set(stage, (times.get(stage) ?? 0) + delta);
  });
  return times;
}
