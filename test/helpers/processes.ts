// The service and the CLI as operators run them, as real processes: the built dist/ through
// scripts/run.mjs (as `npm start` and `npm run cli` do), with the network guard loaded and a clean
// environment, on this file's database (PostgreSQL when DATABASE_URL is set, else a PGlite DATA_DIR).
// The application itself is not loaded here: a file that only starts processes spares its own process
// the ~2 s of CPU that compiling and loading it costs, and on PGlite a database it would never use.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createTestPostgres, type TestPostgres } from './test-postgres.ts';
import { waitFor as waitUntil } from './wait.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NETWORK_GUARD = path.join(ROOT, 'test/helpers/no-network.mjs');
export const STARTUP_MS = 120_000;

export type Env = Record<string, string | undefined>;

export interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Every process started here, killed when the test file is done with them. */
export const started: ChildProcess[] = [];

/**
 * `node scripts/run.mjs <args>`: only the given environment, so nothing of the runner's leaks in.
 * `wrapper` is a command that runs it (e.g. `unshare --pid --fork`), given node and its arguments.
 */
export function run(args: string[], env: Env, wrapper: string[] = []): Running {
  // The live market stream stays closed: the server would open Binance's real WebSocket.
  const command = [
    ...wrapper,
    process.execPath,
    // As `npm start` runs: PGlite's WebAssembly on the baseline compiler only, which spares each
    // process the optimising compiler's work (decision 300).
    '--liftoff-only',
    // The guard is plain JavaScript: no tsx, which cost each started process ~1 s of CPU (decision 305).
    '--import',
    NETWORK_GUARD,
    'scripts/run.mjs',
    ...args,
  ];
  const child = spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, MARKET_LIVE_STREAM: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk) => (out += String(chunk)));
  child.stderr!.on('data', (chunk) => (err += String(chunk)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

export function killStarted(): void {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** waitFor of ./wait.ts, given a process's start-up time by default. */
export function waitFor(condition: () => boolean, what: string, timeoutMs = STARTUP_MS): Promise<void> {
  return waitUntil(condition, what, timeoutMs, 50);
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * This file's PostgreSQL database, created on first use and dropped when the file ends (a file that
 * starts processes runs in a process of its own, decision 350); undefined on PGlite.
 */
let postgres: Promise<TestPostgres | undefined> | undefined;
after(async () => {
  await (await postgres)?.drop();
});

/** Where the spawned processes keep their data: this file's PostgreSQL database, or a new PGlite dir. */
export async function storage(): Promise<Env> {
  postgres ??= createTestPostgres();
  const url = (await postgres)?.url;
  return {
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'tp-proc-')),
    DATABASE_URL: url,
    REDIS_URL: process.env.REDIS_URL,
    REDIS_KEY_PREFIX: `test:${randomUUID()}:`,
  };
}

export const logLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** A server as `npm start` runs it, listening once this resolves. */
export async function startServer(
  env: Env,
  wrapper: string[] = [],
): Promise<Running & { url: string; stop(): Promise<number | null> }> {
  const port = await freePort();
  const proc = run(['main'], { LOG_LEVEL: 'info', ...env, PORT: String(port) }, wrapper);
  await waitFor(
    () => proc.stdout().includes('"msg":"listening at') || proc.child.exitCode !== null,
    'the server to listen',
  );
  if (proc.child.exitCode !== null) throw new Error(`the server did not start: ${proc.stderr()}`);
  return {
    ...proc,
    url: `http://127.0.0.1:${port}`,
    async stop() {
      proc.child.kill('SIGTERM');
      return (await proc.exited).code;
    },
  };
}

/** `npm run cli -- <args>`, to its end; stderr without the warning a Node outside `engines` gets. */
export async function cli(
  env: Env,
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = run(['cli', ...args], env);
  const { code } = await proc.exited;
  return {
    code,
    stdout: proc.stdout(),
    stderr: proc.stderr().replace(/^warning: Node v\S+ is outside the versions .*\n/, ''),
  };
}

/** POSTs JSON to a started server; answers the status and the parsed body. */
export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
