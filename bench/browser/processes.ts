// bench:browser's view of Chromium's processes through /proc (they are descendants of this one:
// Playwright spawns them): CPU seconds by process kind and by thread, peak resident memory, the
// whole machine's busy time, the profile folder and a folder's size on disk.
import { execSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface ProcInfo {
  pid: number;
  kind: string;
  /** CPU seconds, user + system. */
  cpu: number;
  rssBytes: number;
}
const CLK_TCK = (() => {
  try {
    return Number(execSync('getconf CLK_TCK', { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

function kindOf(cmdline: string[]): string {
  const type = cmdline.find((a) => a.startsWith('--type='))?.slice(7);
  if (!type) return 'browser process';
  if (type === 'renderer') return cmdline.includes('--extension-process') ? 'extension renderer (history page, popup, worker)' : 'page renderers';
  if (type === 'utility') return `utility: ${cmdline.find((a) => a.startsWith('--utility-sub-type='))?.slice(19) ?? '?'}`;
  return type;
}

export function chromiumProcesses(): ProcInfo[] {
  const parents = new Map<number, number>();
  const stats = new Map<number, string[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parents.set(Number(entry), Number(rest[1]));
      stats.set(Number(entry), rest);
    } catch {
      // gone
    }
  }
  const mine = new Set<number>([process.pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (!mine.has(pid) && mine.has(ppid)) {
        mine.add(pid);
        grew = true;
      }
    }
  }
  mine.delete(process.pid);
  const out: ProcInfo[] = [];
  for (const pid of mine) {
    try {
      // Zygote-forked processes rewrite their command line into one space-separated string.
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
      if (!/chrom/i.test(cmdline[0] ?? '')) continue;
      const rest = stats.get(pid)!;
      out.push({ pid, kind: kindOf(cmdline), cpu: (Number(rest[11]) + Number(rest[12])) / CLK_TCK, rssBytes: Number(rest[21]) * 4096 });
    } catch {
      // gone
    }
  }
  return out;
}

/** Each thread of Chromium's processes ("pid tid"): its name ("kind: thread name") and CPU seconds so far (/proc/PID/task/TID). */
export function chromiumThreads(): Map<string, { name: string; cpu: number }> {
  const out = new Map<string, { name: string; cpu: number }>();
  for (const p of chromiumProcesses()) {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${p.pid}/task`);
    } catch {
      continue; // gone
    }
    for (const tid of tasks) {
      try {
        const stat = readFileSync(`/proc/${p.pid}/task/${tid}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        out.set(`${p.pid} ${tid}`, { name: `${p.kind.split(' (')[0]}: ${name}`, cpu: (Number(rest[11]) + Number(rest[12])) / CLK_TCK });
      } catch {
        // gone
      }
    }
  }
  return out;
}

/** CPU seconds by thread name between two chromiumThreads() snapshots, the busiest first. */
export function threadCpuBetween(before: Map<string, { cpu: number }>, after: Map<string, { name: string; cpu: number }>): [string, number][] {
  const byName = new Map<string, number>();
  for (const [key, { name, cpu }] of after) byName.set(name, (byName.get(name) ?? 0) + cpu - (before.get(key)?.cpu ?? 0));
  return [...byName].filter(([, cpu]) => cpu >= 0.5).sort((a, b) => b[1] - a[1]);
}

/** CPU seconds per process kind between two snapshots (processes that ended in between are lost). */
export function cpuBetween(before: ProcInfo[], after: ProcInfo[]): [string, number][] {
  const start = new Map(before.map((p) => [p.pid, p.cpu]));
  const byKind = new Map<string, number>();
  for (const p of after) byKind.set(p.kind, (byKind.get(p.kind) ?? 0) + p.cpu - (start.get(p.pid) ?? 0));
  return [...byKind].filter(([, cpu]) => cpu >= 0.05).sort((a, b) => b[1] - a[1]);
}

/** Fields of /proc/PID/status given in kB (VmHWM, RssAnon, …), in bytes (NaN for one not there); undefined if the process is gone. */
function statusBytes(pid: number, names: readonly string[]): number[] | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined; // gone
  }
  return names.map((name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024);
}

/** The extension renderers' resident memory by kind of memory (RssAnon, RssFile, RssShmem in /proc/PID/status), in bytes: what the process allocated, and the mapped files and shared memory it touched. */
export function extensionResidentSplit(): { anon: number; file: number; shmem: number } {
  const split = { anon: 0, file: 0, shmem: 0 };
  for (const p of chromiumProcesses().filter((q) => q.kind.startsWith('extension renderer'))) {
    // a process gone, or a field missing, adds nothing
    const [anon, file, shmem] = statusBytes(p.pid, ['RssAnon', 'RssFile', 'RssShmem']) ?? [];
    split.anon += anon || 0;
    split.file += file || 0;
    split.shmem += shmem || 0;
  }
  return split;
}

/** The extension renderers' largest peak resident memory so far (VmHWM), in bytes (0 for none). */
export const extensionPeak = (): number => peakResident().find(([kind]) => kind.startsWith('extension renderer'))?.[1] ?? 0;

/** Each Chromium process kind's largest peak resident memory (VmHWM in /proc/PID/status), the largest first. */
export function peakResident(): [string, number][] {
  const byKind = new Map<string, number>();
  for (const p of chromiumProcesses()) {
    const [peak = NaN] = statusBytes(p.pid, ['VmHWM']) ?? [];
    if (Number.isFinite(peak)) byKind.set(p.kind, Math.max(byKind.get(p.kind) ?? 0, peak));
  }
  return [...byKind].sort((a, b) => b[1] - a[1]);
}

/** CPU seconds the whole machine has spent busy since boot (/proc/stat). */
export function machineBusy(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
  return (user + nice + system + irq + softirq + steal) / CLK_TCK;
}

export const ownCpu = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

export function userDataDir(): string | null {
  for (const p of chromiumProcesses()) {
    if (p.kind !== 'browser process') continue;
    const arg = readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').split(/\0/).find((a) => a.startsWith('--user-data-dir='));
    if (arg) return arg.slice('--user-data-dir='.length);
  }
  return null;
}

export function folderBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? folderBytes(path) : statSync(path).size;
  }
  return total;
}
