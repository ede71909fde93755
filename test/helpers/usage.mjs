// Loaded before every test file by scripts/run-tests.mjs: when the file's process exits, it writes
// what it cost to TEST_USAGE_DIR/<pid>.json, its own CPU time and that of the processes it started
// and waited for (the servers and CLIs of the process tests), from /proc/self/stat. CPU time, unlike
// wall time, hardly depends on how busy the machine is, so the run's closing summary can rank files
// by it and a run on a shared machine still says what a quiet one would take.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { childrenCpuSeconds } from './children-cpu.mjs';

const dir = process.env.TEST_USAGE_DIR;
if (dir) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    const children = childrenCpuSeconds();
    const self = (usage.userCPUTime + usage.systemCPUTime) / 1e6;
    writeFileSync(
      path.join(dir, `${process.pid}.json`),
      JSON.stringify({ cpu: self, children, maxRssMiB: Math.round(usage.maxRSS / 1024) }),
    );
  });
}
