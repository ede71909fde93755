// CPU seconds of the processes this one started and waited for (the servers and CLIs of the process
// tests), from /proc/self/stat; 0 where there is no /proc (not Linux).
import { readFileSync } from 'node:fs';

export function childrenCpuSeconds() {
  try {
    // Fields after the command name (which may hold spaces): utime stime cutime cstime are 14..17.
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return 0;
  }
}
