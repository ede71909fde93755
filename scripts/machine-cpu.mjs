// What the test runner reads of the machine's CPU time, from Linux's /proc: the machine's idle cores
// while the files run (decision 600), and the CPU time of the processes under a file's process that
// it never waits for, so never counted in its own figures: a browser's renderers (children of
// Chromium's zygote, reaped by no process of the file's), a process left to the system when its
// parent ended. A file's process counts its own CPU time and that of the children it waited for
// (test/helpers/usage.mjs); the runner reads the rest while the file runs and charges it to the file
// (decision 660). Elsewhere than Linux nothing is read and nothing is added.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { eachTask } from './process-tree.mjs';

/** Clock ticks a second of /proc/<pid>/stat's times: 100 on every Linux Node runs on. */
const TICKS = 100;

/**
 * The CPU seconds (user and system, not those of its own children) of every process under `pid`,
 * `pid` itself left out, by pid and start time (a pid used again is another process). A zombie, ended
 * but not yet reaped, still says what it ran.
 */
export function descendantsCpu(pid) {
  const found = new Map();
  eachTask(pid, (process, task) => {
    // A process's own figures are in its /proc/<pid>/stat, read once, at its main thread.
    if (task !== process || process === String(pid)) return;
    try {
      const stat = readFileSync(`/proc/${process}/stat`, 'latin1');
      // Fields after the command name (which may hold spaces): utime stime are 14 and 15, starttime 22.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      found.set(`${process}:${fields[19]}`, (Number(fields[11]) + Number(fields[12])) / TICKS);
    } catch {
      // Ended meanwhile.
    }
  });
  return found;
}

/**
 * Watches the processes under `pid` from now on: each `tick()` reads them, and `seconds()` is the CPU
 * time they ran since the first reading, each process as last seen (what one ran after the last reading
 * before it ended is missed: a lower bound, within a reading's interval of each process's end).
 * `read` is injectable so the arithmetic can be checked on readings of one's choosing.
 */
export function descendantsWatch(pid, { read = descendantsCpu } = {}) {
  const first = read(pid);
  const last = new Map(first);
  return {
    tick() {
      for (const [key, seconds] of read(pid)) last.set(key, seconds);
    },
    seconds() {
      let sum = 0;
      for (const [key, seconds] of last) sum += Math.max(0, seconds - (first.get(key) ?? 0));
      return sum;
    },
  };
}

/**
 * What the processes under a file's process ran that its own figures miss: what they were seen to run,
 * less the CPU time of the children the file's process waited for (already in its figures). Both count
 * the same processes when every one is waited for; the larger is the nearer, each being a lower bound
 * (a reading misses the end of a short process; waiting misses the processes never reaped).
 */
export function unwaitedSeconds(seen, waited) {
  return Math.max(0, seen - waited);
}

/**
 * The machine's idle core time (Linux's /proc/stat: idle and iowait, in clock ticks of 10 ms), read
 * every few seconds while the files run, so the closing summary can say how much of the cores the run
 * left unused and when: idle cores while files run are files that wait (on their fakes, their
 * timeouts, the processes they started), not files that compute. The busy time beside it shows what
 * the files' figures miss: the run's set-up, the ends of processes no file waited for, between two
 * readings (decisions 600, 660). Includes any other work on the machine, which a run alone on it does
 * not have. Elsewhere than Linux nothing is read.
 */
export function idleCores() {
  const read = () => {
    try {
      const fields = readFileSync('/proc/stat', 'latin1').split('\n', 1)[0].trim().split(/\s+/);
      return (Number(fields[4]) + Number(fields[5])) / 100;
    } catch {
      return undefined;
    }
  };
  const first = read();
  if (first === undefined) return undefined;
  const samples = [{ at: performance.now(), idle: first }];
  const timer = setInterval(() => samples.push({ at: performance.now(), idle: read() ?? first }), 5_000);
  timer.unref();
  return {
    /** Idle and busy core seconds in all, and the share of the cores idle in each tenth of the run. */
    stop() {
      clearInterval(timer);
      samples.push({ at: performance.now(), idle: read() ?? first });
      const span = samples.at(-1).at - samples[0].at;
      const tenths = Array.from({ length: 10 }, () => ({ idle: 0, ms: 0 }));
      for (let i = 1; i < samples.length; i++) {
        const tenth = Math.min(9, Math.floor(((samples[i - 1].at - samples[0].at) / span) * 10));
        tenths[tenth].idle += samples[i].idle - samples[i - 1].idle;
        tenths[tenth].ms += samples[i].at - samples[i - 1].at;
      }
      const share = (idle, ms) => (ms > 0 ? Math.round((idle / ((ms / 1000) * availableParallelism())) * 100) : 0);
      return {
        idle: samples.at(-1).idle - first,
        busy: (span / 1000) * availableParallelism() - (samples.at(-1).idle - first),
        percent: share(samples.at(-1).idle - first, span),
        tenths: tenths.map((t) => share(t.idle, t.ms)),
      };
    },
  };
}
