// The main-thread time a content script takes on a page, from a Chromium trace (CDP Tracing with
// the devtools.timeline and v8 CPU-profiler categories) recorded while the page loads and the
// content script reads it.
//
// Attribution: the content script runs in an isolated world of the page's renderer, on the page's
// main thread (CrRendererMain). Its first task is the evaluation of its bundle (an EvaluateScript
// event whose URL is the content script's); its later work runs in tasks that Chromium names by
// what started them (an idle callback, a timer, a reply of an extension API resolving a promise),
// and the task that reads the article is a microtask checkpoint after `storage.local.get`, which
// carries no URL at all. So a task (a top-level RunTask on that thread) is counted as the content
// script's when it contains an EvaluateScript, FunctionCall or compile event of the content
// script's URL, or a CPU-profile sample whose stack has a frame from it. The whole task counts: a
// page's task is what blocks input, and anything else in such a task (garbage collection,
// microtasks queued by the page) is rare and small.
//
// The sampling profiler (about one sample every 0.1–0.2 ms in Chromium's traces) costs a few
// percent of the traced time; the figures are upper bounds.

export interface TraceEvent {
  name: string;
  cat?: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  id?: string | number;
  args?: Record<string, any>;
}

/** Categories to trace for contentScriptTasks. */
export const TRACE_CATEGORIES = [
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'disabled-by-default-v8.cpu_profiler',
];

export interface ScriptTasks {
  /** Whether the content script ran on this trace's page at all (its EvaluateScript was seen). */
  ran: boolean;
  /** Durations (ms) of the main-thread tasks that ran content-script code, in order. */
  tasks: number[];
  totalMs: number;
  longestMs: number;
  /** CPU-profile time (ms) with a content-script frame on the stack (JS and the DOM calls it makes). */
  sampledMs: number;
}

function urlOf(event: TraceEvent): string {
  const data = event.args?.['data'] as { url?: unknown } | undefined;
  if (typeof data?.url === 'string') return data.url;
  const fileName = event.args?.['fileName'];
  return typeof fileName === 'string' ? fileName : '';
}

/** Index of the first element of sorted `xs` that is >= x. */
function lowerBound(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

interface ProfileNode {
  url: string;
  parent?: number;
}

/** Times (µs, trace clock) of the samples on (pid) whose stack includes a frame from scriptUrl, each with its interval. */
function scriptSamples(events: readonly TraceEvent[], pid: number, tid: number, scriptUrl: string): { times: number[]; intervals: number[] } {
  const starts = new Map<string, number>();
  for (const e of events) {
    if (e.name === 'Profile' && e.pid === pid && e.tid === tid) {
      const start = (e.args?.['data'] as { startTime?: number } | undefined)?.startTime;
      if (typeof start === 'number') starts.set(String(e.id), start);
    }
  }
  const samples: { time: number; node: number; profile: string }[] = [];
  const nodes = new Map<string, Map<number, ProfileNode>>();
  const clocks = new Map<string, number>();
  const chunks = events.filter((e) => e.name === 'ProfileChunk' && e.pid === pid && starts.has(String(e.id))).sort((a, b) => a.ts - b.ts);
  for (const chunk of chunks) {
    const id = String(chunk.id);
    const data = chunk.args?.['data'] as
      | { cpuProfile?: { nodes?: { id: number; parent?: number; callFrame: { url?: string } }[]; samples?: number[] }; timeDeltas?: number[] }
      | undefined;
    let byId = nodes.get(id);
    if (!byId) nodes.set(id, (byId = new Map()));
    for (const node of data?.cpuProfile?.nodes ?? []) byId.set(node.id, { url: node.callFrame.url ?? '', ...(node.parent === undefined ? {} : { parent: node.parent }) });
    const ids = data?.cpuProfile?.samples ?? [];
    const deltas = data?.timeDeltas ?? [];
    let clock = clocks.get(id) ?? starts.get(id)!;
    for (let i = 0; i < ids.length; i++) {
      clock += deltas[i] ?? 0;
      samples.push({ time: clock, node: ids[i]!, profile: id });
    }
    clocks.set(id, clock);
  }
  samples.sort((a, b) => a.time - b.time);
  const inScript = new Map<string, boolean>();
  const fromScript = (profile: string, node: number): boolean => {
    const key = `${profile}:${node}`;
    const known = inScript.get(key);
    if (known !== undefined) return known;
    const byId = nodes.get(profile)!;
    const chain: string[] = [];
    let result = false;
    for (let at: number | undefined = node; at !== undefined; ) {
      const k = `${profile}:${at}`;
      const cached = inScript.get(k);
      if (cached !== undefined) {
        result = cached;
        break;
      }
      chain.push(k);
      const n = byId.get(at);
      if (!n) break;
      if (n.url.startsWith(scriptUrl)) {
        result = true;
        break;
      }
      at = n.parent;
    }
    for (const k of chain) inScript.set(k, result);
    return result;
  };
  const times: number[] = [];
  const intervals: number[] = [];
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]!;
    if (fromScript(s.profile, s.node)) {
      times.push(s.time);
      const next = samples[i + 1];
      intervals.push(next ? Math.min(next.time - s.time, 2000) : 0);
    }
  }
  return { times, intervals };
}

/**
 * The main-thread tasks of the content script whose bundle URL starts with `scriptUrl`
 * (chrome-extension://ID/content-scripts/content.js), in a trace of one page load.
 */
export function contentScriptTasks(events: readonly TraceEvent[], scriptUrl: string): ScriptTasks {
  const evaluation = events.find((e) => e.name === 'EvaluateScript' && urlOf(e).startsWith(scriptUrl));
  if (!evaluation) return { ran: false, tasks: [], totalMs: 0, longestMs: 0, sampledMs: 0 };
  const { pid, tid } = evaluation;
  const onThread = events.filter((e) => e.pid === pid && e.tid === tid && e.ph === 'X' && typeof e.dur === 'number');
  const markers = onThread
    .filter((e) => (e.name === 'EvaluateScript' || e.name === 'FunctionCall' || e.name === 'v8.compile' || e.name === 'TimerFire') && urlOf(e).startsWith(scriptUrl))
    .map((e) => e.ts)
    .sort((a, b) => a - b);
  const { times, intervals } = scriptSamples(events, pid, tid, scriptUrl);
  const sampledMs = intervals.reduce((sum, x) => sum + x, 0) / 1000;

  const runTasks = onThread
    .filter((e) => e.name === 'RunTask' && (e.cat ?? '').includes('devtools.timeline'))
    .sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const tasks: number[] = [];
  let coveredUntil = -Infinity;
  for (const task of runTasks) {
    const end = task.ts + task.dur!;
    if (task.ts < coveredUntil) continue; // nested in the previous top-level task
    coveredUntil = end;
    if (end < evaluation.ts) continue; // before the content script was injected
    const has = (xs: readonly number[]): boolean => {
      const at = lowerBound(xs, task.ts);
      return at < xs.length && xs[at]! <= end;
    };
    if (has(markers) || has(times)) tasks.push(task.dur! / 1000);
  }
  return {
    ran: true,
    tasks,
    totalMs: tasks.reduce((sum, x) => sum + x, 0),
    longestMs: tasks.reduce((max, x) => Math.max(max, x), 0),
    sampledMs,
  };
}
