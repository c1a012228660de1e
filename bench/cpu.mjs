// CPU seconds of the local server and of the machine, from /proc (Linux): a benchmark on a machine
// shared with other work reads its server's CPU alongside the wall clock, since the CPU a run costs
// hardly moves with other load while its wall time does.
import { readFileSync } from 'node:fs';
import { descendantPids } from './lib.mjs';

const CLOCK_TICK = 100; // USER_HZ on Linux: /proc times are in 1/100 s

/** user + system seconds of a process from /proc/<pid>/stat, and its name; null when gone. */
function procCpu(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), seconds: (Number(f[11]) + Number(f[12])) / CLOCK_TICK };
  } catch {
    return null;
  }
}

/**
 * CPU seconds so far: the workerd processes under the harness's wrangler, the whole server (wrangler
 * and everything below it), this benchmark process, and the machine (busy time of every CPU, from
 * /proc/stat). The difference of two tells what else ran on the machine meanwhile.
 */
export function cpuSnapshot(rootPid) {
  let workerd = 0;
  let serverCpu = 0;
  if (rootPid) {
    for (const pid of [rootPid, ...descendantPids(rootPid)]) {
      const c = procCpu(pid);
      if (!c) continue;
      serverCpu += c.seconds;
      if (c.name === 'workerd') workerd += c.seconds;
    }
  }
  const u = process.cpuUsage();
  let machine = NaN;
  try {
    const [, ...f] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
    // user nice system idle iowait irq softirq steal …: busy = user + nice + system + irq + softirq
    machine = (f[0] + f[1] + f[2] + f[5] + f[6]) / CLOCK_TICK;
  } catch {
    /* not Linux */
  }
  return { workerd, server: serverCpu, bench: (u.user + u.system) / 1e6, machine, at: process.hrtime.bigint() };
}

/** What ran between two snapshots: wall seconds, CPU seconds of workerd, the server, the bench, and everything else. */
export function cpuDelta(a, b) {
  const d = (k) => b[k] - a[k];
  const wall = Number(b.at - a.at) / 1e9;
  return { wallSeconds: wall, workerd: d('workerd'), server: d('server'), bench: d('bench'), machine: d('machine'), others: Math.max(0, d('machine') - d('server') - d('bench')) };
}
