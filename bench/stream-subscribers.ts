// The subscribers' process of the price stream benches (bench/stream-client.ts), started by
// `npm run bench:stream` and `npm run bench:stream-writers` alike, and asked over its IPC channel.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { ClientCommand } from './stream-client.ts';

const here = path.dirname(new URL(import.meta.url).pathname);
const client = path.join(here, 'stream-client.ts');
/** Where `--import tsx` is resolved from: the repository's root. */
const root = path.resolve(here, '..');

export interface Subscribers {
  /** One request and its answer; one at a time. */
  ask(command: ClientCommand): Promise<Record<string, unknown>>;
  child: ChildProcess;
}

/**
 * The subscribers' process, under `taskset -c cpus` when given (it execs node: the pid is node's), with
 * `flags` for node (e.g. a CPU profile).
 */
export function startSubscribers(cpus: string | undefined, flags: string[] = []): Subscribers {
  const args = [...flags, '--import', 'tsx', client];
  const options = { cwd: root, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] as ('ignore' | 'inherit' | 'ipc')[] };
  const child = cpus
    ? spawn('taskset', ['-c', cpus, process.execPath, ...args], options)
    : spawn(process.execPath, args, options);
  const ask = (command: ClientCommand) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      child.once('message', (answer: Record<string, unknown>) =>
        answer.type === 'error' ? reject(new Error(String(answer.message))) : resolve(answer),
      );
      child.send(command);
    });
  return { ask, child };
}
