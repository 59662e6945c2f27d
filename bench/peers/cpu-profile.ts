// Sums V8 CPU profiles (node --cpu-prof) by stage of `scan`: the self time of every function,
// grouped by the file it is in (bench:peers' "where the time goes").

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Stages by the file a function is in, first match wins. */
const STAGES: [RegExp, string][] = [
  [/node_modules\/(linkedom|htmlparser2|domhandler|entities|css-select|cssom|uhyphen)/, 'HTML parsing (linkedom)'],
  [/node_modules\/@mozilla\/readability/, 'Readability'],
  [/lib\/text\//, 'text: extraction, normalising, words'],
  [/lib\/fingerprint\/(features|simhash|bits|hash)\./, 'simhash fingerprints'],
  [/lib\/fingerprint\/(passages|winnow|passage-codec)\./, 'passage fingerprints'],
  [/lib\/fingerprint\/(rewrite|common-words)/, 'rare-word fingerprints'],
  [/lib\/fingerprint\//, 'other fingerprints'],
  [/lib\/index\/(passage-index|passage-match)\./, 'passage pairs'],
  [/lib\/index\/rewrite-index\./, 'rewrite pairs'],
  [/lib\/(index|report)\/|lib\/scan\/detectors\/simhash/, 'simhash pairs and clusters'],
  [/lib\/scan\/|bin\//, 'scan: reading files, the report'],
  [/node_modules\/(tsx|esbuild|get-tsconfig)/, 'loading TypeScript (tsx)'],
];

const IDLE = '(idle)';

function stageOf({ functionName, url }: ProfileNode['callFrame']): string {
  if (functionName === IDLE) return IDLE;
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(program)') return 'V8 (compiling, runtime)';
  for (const [pattern, stage] of STAGES) if (pattern.test(url)) return stage;
  return url === '' ? 'built-ins (JSON, strings, regular expressions)' : url.startsWith('node:') ? 'Node (files, threads)' : 'other';
}

/**
 * Self time by stage over the profiles (every thread's: tsx's loader runs on a thread of its own),
 * largest first. A thread's idle time is left out: it is no stage, and the loader's thread idles
 * through the whole run.
 */
export function profileByStage(profiles: readonly CpuProfile[]): { stage: string; ms: number; share: number }[] {
  const byStage = new Map<string, number>();
  let total = 0;
  for (const profile of profiles) {
    const stageOfNode = new Map(profile.nodes.map((n) => [n.id, stageOf(n.callFrame)]));
    profile.samples.forEach((id, i) => {
      const us = profile.timeDeltas[i] ?? 0;
      const stage = stageOfNode.get(id) ?? 'other';
      if (stage === IDLE) return;
      byStage.set(stage, (byStage.get(stage) ?? 0) + us);
      total += us;
    });
  }
  return [...byStage]
    .map(([stage, us]) => ({ stage, ms: us / 1000, share: us / Math.max(1, total) }))
    .sort((a, b) => b.ms - a.ms);
}
