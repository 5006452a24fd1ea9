// Reads a V8 CPU profile (node --cpu-prof) and ranks functions by self time.
import { readFileSync } from 'node:fs';

type ProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
};
type CpuProfile = { nodes: ProfileNode[]; startTime: number; samples: number[]; timeDeltas: number[] };

export type SelfTime = { name: string; where: string; percent: number };

/** Where a frame comes from: a file of the repository or a package, node's internals, or native. */
function fileOf(url: string): string {
  if (!url) return '(native)';
  return url.replace(/^file:\/\//, '').replace(/^.*\/(packages|node_modules)\//, '$1/');
}

/**
 * The `top` functions by self time, as a share of the samples that were not idle, counting only
 * the samples taken between `from` and `to` (µs of the monotonic clock, as process.hrtime gives
 * it and V8 stamps its samples): the run measured, not the start-up.
 */
export function topSelfTime(
  path: string,
  window: { from: number; to: number },
  top = 12,
): { busyPercent: number; functions: SelfTime[]; files: { file: string; percent: number }[] } {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const time = new Map<string, { name: string; where: string; us: number }>();
  let total = 0;
  let idle = 0;
  const byFile = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < window.from || at > window.to) return;
    const frame = byId.get(id)!.callFrame;
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
  if (total === 0) throw new Error(`${path}: no samples between ${window.from} and ${window.to}`);
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
