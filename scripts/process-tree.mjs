// The one walk of a process tree in Linux's /proc, under the test runner's two readings of it: the
// time its threads waited for a core (ready-wait.mjs: the file timeout, decision 480) and the CPU time
// of the processes under a file's process that it never waits for (machine-cpu.mjs: decision 660).
// Where there is no /proc (not Linux) nothing is visited.
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Calls `read(process, task)` (both ids as /proc writes them) for every thread of `pid` and of every
 * process under it, each process before those it started. The processes are found by each thread's
 * list of the children it started (a browser's own process group and a server that started its own
 * session are still found; a process whose parent ended is not, nor a process that ends meanwhile).
 */
export function eachTask(pid, read) {
  const visit = (process) => {
    let tasks;
    try {
      tasks = readdirSync(`/proc/${process}/task`);
    } catch {
      return;
    }
    for (const task of tasks) {
      read(process, task);
      let children = [];
      try {
        children = readFileSync(`/proc/${process}/task/${task}/children`, 'latin1').split(' ').filter(Boolean);
      } catch {
        // Ended meanwhile.
      }
      for (const child of children) visit(child);
    }
  };
  visit(String(pid));
}
