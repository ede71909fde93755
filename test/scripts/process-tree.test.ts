// The one walk of a process tree under the test runner's two readings of it (the time waited for a
// core, decision 480; the CPU time a file's process never waits for, decision 660), on a real tree:
// this process, a shell it starts and the shell's own child.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { descendantsCpu } from '../../scripts/machine-cpu.mjs';
import { eachTask } from '../../scripts/process-tree.mjs';
import { treeSchedstats } from '../../scripts/ready-wait.mjs';

describe('the process-tree walk', {
  skip: existsSync('/proc/self/task') ? undefined : 'needs Linux, whose /proc lists a process tree',
}, () => {
  it('visits every thread of a process and of the processes under it, each before its children', async () => {
    // `sh` waits on its own child, a `sleep`: a tree of three processes, one a grandchild.
    const shell = spawn('sh', ['-c', 'sleep 30; true'], { stdio: 'ignore' });
    try {
      let sleeper: string | undefined;
      for (let tries = 0; !sleeper && tries < 200; tries++) {
        sleeper = readFileSync(`/proc/${shell.pid}/task/${shell.pid}/children`, 'latin1').trim() || undefined;
        if (!sleeper) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.ok(sleeper, 'the shell started its sleep');
      const visits: [string, string][] = [];
      eachTask(process.pid, (proc, task) => visits.push([proc, task]));
      const order = visits.map(([proc]) => proc).filter((proc, i, all) => all.indexOf(proc) === i);
      const own = String(process.pid);
      assert.ok(order.indexOf(own) === 0, 'this process first');
      assert.ok(order.indexOf(String(shell.pid)) > 0, 'the shell after it');
      assert.ok(order.indexOf(sleeper) > order.indexOf(String(shell.pid)), 'the sleep after the shell');
      // Node has several threads; each is visited, under its own process.
      assert.ok(visits.filter(([proc]) => proc === own).length > 1, 'every thread of this process');
      assert.ok(visits.some(([proc, task]) => proc === own && task === own));

      // The two readings, on the same tree.
      // (Others may be under it too: the TypeScript loader's compiler service.)
      const cpu = [...descendantsCpu(process.pid).keys()].map((key) => key.split(':')[0]);
      assert.ok(cpu.includes(String(shell.pid)) && cpu.includes(sleeper), 'the processes under this one');
      assert.ok(!cpu.includes(own), 'not this one');
      const waits = treeSchedstats(process.pid);
      assert.ok(waits.has(String(shell.pid)) && waits.has(sleeper));
    } finally {
      shell.kill('SIGKILL');
    }
  });
});
