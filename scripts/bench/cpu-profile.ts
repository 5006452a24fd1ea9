// Reads a V8 CPU profile (node --cpu-prof) and ranks functions by self time.
import { readFileSync } from 'node:fs';

type ProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
};
type CpuProfile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };

export type SelfTime = { name: string; where: string; percent: number };

/** The `top` functions by self time, as a share of the samples that were not idle. */
export function topSelfTime(path: string, top = 12): { busyPercent: number; functions: SelfTime[] } {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const time = new Map<string, { name: string; where: string; us: number }>();
  let total = 0;
  let idle = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    const frame = byId.get(id)!.callFrame;
    total += delta;
    if (frame.functionName === '(idle)') {
      idle += delta;
      return;
    }
    const where = frame.url
      ? `${frame.url.replace(/^file:\/\//, '').replace(/^.*\/(packages|node_modules)\//, '$1/')}:${frame.lineNumber + 1}`
      : '';
    const key = `${frame.functionName}@${where}`;
    const entry = time.get(key) ?? { name: frame.functionName || '(anonymous)', where, us: 0 };
    entry.us += delta;
    time.set(key, entry);
  });
  const busy = total - idle;
  const functions = [...time.values()]
    .sort((a, b) => b.us - a.us)
    .slice(0, top)
    .map(({ name, where, us }) => ({ name, where, percent: (100 * us) / busy }));
  return { busyPercent: (100 * busy) / total, functions };
}
