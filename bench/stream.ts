// The price stream under 1k, 3k, 6k and 10k subscribers: the app started as `npm start` starts it,
// fed by the loopback Binance WebSocket fake, which moves every pair's price every 600 ms. The
// subscribers are plain HTTP clients reading the SSE text in a child process of their own
// (bench/stream-client.ts). Reported per size: the delay from a venue tick to the last subscriber's
// byte of it (p50/p99/max over the ticks after BENCH_WARM_TICKS warm-up ticks, whose last byte is
// reported apart), every delivery's delay (p50/p99), events lost, the server's RSS and the CPU time of
// the server and of the clients, apart.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startBinanceFake } from '../test/fakes/binance.ts';
import { startBinanceWsFake } from '../test/fakes/binance-ws.ts';
import { startCoinGeckoFake } from '../test/fakes/coingecko.ts';
import { percentile } from './load.ts';
import { freePort } from './ports.ts';
import type { ClientCommand, ClientReport } from './stream-client.ts';
import { startSubscribers } from './stream-subscribers.ts';

const SIZES = (process.env.BENCH_SIZES ?? '1000,3000,6000,10000').split(',').map(Number);
const TICKS = Number(process.env.BENCH_TICKS ?? 30);
const TICK_MS = Number(process.env.BENCH_TICK_MS ?? 600);
/**
 * Ticks sent after the subscribers connect and before the measured ones, as `npm run bench:stream-writers`
 * does (3): the first ticks after 10,000 connections find the subscribers' process cold (its reading code
 * not yet compiled) and read late, however fast the server wrote (decision 540). Their last byte is
 * reported apart (`warmLastByte`), not hidden; `BENCH_WARM_TICKS=0` measures from the first tick, as before.
 */
const WARM_TICKS = Number(process.env.BENCH_WARM_TICKS ?? 3);
const NAMED = 'BTCUSDT,ETHUSDT,BNBUSDT';
/** Extra node flags for the server only, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile the fan-out. */
const SERVER_FLAGS = (process.env.BENCH_SERVER_FLAGS ?? '').split(/\s+/).filter(Boolean);
/** Extra node flags for the subscribers' process only, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
const CLIENT_FLAGS = (process.env.BENCH_CLIENT_FLAGS ?? '').split(/\s+/).filter(Boolean);
/**
 * `SERVER:CLIENT` CPU lists for `taskset` (e.g. `0:1`): the server and the subscribers' process each kept
 * on its own cores. Unpinned, a subscriber woken by the server's write is placed on the writing core and
 * preempts the server there, over a thousand times a tick at 10,000 (decision 330); remote subscribers never do.
 */
const [SERVER_CPUS, CLIENT_CPUS] = (process.env.BENCH_PIN_CPUS ?? '').split(':');

/** `node` with these arguments, under `taskset -c cpus` when given (it execs node: the pid is node's). */
function node(cpus: string | undefined, args: string[]): [string, string[]] {
  return cpus ? ['taskset', ['-c', cpus, process.execPath, ...args]] : [process.execPath, args];
}
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!;
  return Math.round(Number(line.split(/\s+/)[1]) / 1024);
}

/** Times the process was switched out while it could still run (preempted), so far. */
function preemptions(pid: number): number {
  return Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
}

/** User and system CPU time of a process so far, in ms (`/proc/<pid>/stat`, clock ticks of 10 ms). */
function cpuMs(pid: number): { user: number; system: number; total: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const user = Number(fields[11]) * 10;
  const system = Number(fields[12]) * 10;
  return { user, system, total: user + system };
}

function startApp(env: Record<string, string>): ChildProcess {
  const script = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } })
    .scripts.start;
  const [, ...args] = script.split(/\s+/);
  return spawn(...node(SERVER_CPUS, [...SERVER_FLAGS, ...args]), {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function waitForHttp(port: number, url: string): Promise<void> {
  for (let i = 0; i < 1_800; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}${url}`)).ok) return;
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nothing answered ${url}`);
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const binance = await startBinanceFake();
  const coingecko = await startCoinGeckoFake();
  const ws = await startBinanceWsFake();
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tp-bench-stream-'));
  const largest = Math.max(...SIZES);
  const app = startApp({
    PORT: String(port),
    DATA_DIR: dataDir,
    BINANCE_API_URL: binance.url,
    COINGECKO_API_URL: coingecko.url,
    BINANCE_WS_URL: ws.url,
    // Public streams may take 80% of the slots; every subscriber comes from one address.
    STREAM_MAX_CONNECTIONS: String(Math.ceil(largest / 0.8) + 100),
    STREAM_MAX_PER_ADDRESS: String(largest + 100),
  });
  const clients = startSubscribers(CLIENT_CPUS, CLIENT_FLAGS);
  const named = NAMED.split(',');
  try {
    await waitForHttp(port, '/healthz');
    ws.push();
    await waitForHttp(port, '/api/v1/market/prices?symbols=BTCUSDT');
    const idleRss = rssMb(app.pid!);
    console.log(
      `idle RSS ${idleRss} MB; ${ws.symbols.length} pairs, ${TICKS} ticks every ${TICK_MS} ms per size ` +
        `after ${WARM_TICKS} warm-up ticks`,
    );
    console.log(
      '| subscribers | tick → last byte p50 / p99 / max ms | delivery p50 / p99 ms | events delivered / expected ' +
        '| lost | RSS connected / peak MB | RSS per subscriber KB | server CPU ms per tick ' +
        '| server CPU µs per subscriber per tick | clients CPU ms per tick | tick → first byte p50 / max ms ' +
        '| warm-up ticks → last byte ms |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
    let moves = 0;
    /** Moves every pair's price (up and down in turn, so the hub has news for each) and sends the tick. */
    const tick = async () => {
      moves += 1;
      for (const symbol of ws.symbols)
        symbol.price = (Number(symbol.price) * (1 + (moves % 2 === 0 ? 0.001 : -0.001))).toFixed(8);
      const pushedAt = Date.now();
      ws.push();
      await wait(TICK_MS - (Date.now() - pushedAt));
    };
    for (const size of SIZES) {
      await clients.ask({ type: 'connect', port, total: size, named: NAMED });
      const connectedRss = rssMb(app.pid!);
      await wait(TICK_MS);
      await clients.ask({ type: 'measure' });
      for (let warm = 1; warm <= WARM_TICKS; warm++) await tick();
      const warmReport = (await clients.ask({ type: 'report' })) as unknown as ClientReport;
      const warmLastByte = Object.entries(warmReport.perTick).map(([ts, read]) => read.lastReadAt - Date.parse(ts));
      await clients.ask({ type: 'measure' });
      const measuredFrom = Date.now();
      const serverCpuAtStart = cpuMs(app.pid!);
      const serverPreemptionsAtStart = preemptions(app.pid!);
      let peakRss = connectedRss;
      for (let measured = 1; measured <= TICKS; measured++) {
        await tick();
        peakRss = Math.max(peakRss, rssMb(app.pid!));
      }
      await wait(1_000);
      const serverCpuNow = cpuMs(app.pid!);
      const serverPreemptions = preemptions(app.pid!) - serverPreemptionsAtStart;
      const serverCpu = serverCpuNow.total - serverCpuAtStart.total;
      // The system share: the socket writes' calls, which on loopback run the receiving side too.
      const serverSystemCpu = serverCpuNow.system - serverCpuAtStart.system;
      const report = (await clients.ask({ type: 'report' })) as unknown as ClientReport;
      const perTickEvents = (size / 2) * ws.symbols.length + (size / 2) * named.length;
      const expected = perTickEvents * TICKS;
      // Every tick read since `measure` is one of these (the feed is live: no REST prices), but for a
      // warm-up tick's last reads on a loaded machine.
      const ticks = Object.entries(report.perTick).filter(([ts]) => Date.parse(ts) >= measuredFrom);
      const lastByte = Float64Array.from(ticks.map(([ts, read]) => read.lastReadAt - Date.parse(ts))).sort();
      // The tick's way to the first subscriber (the feed, the hub, the first write): what is not fan-out.
      const firstByte = Float64Array.from(ticks.map(([ts, read]) => read.firstReadAt - Date.parse(ts))).sort();
      const delivered = ticks.reduce((sum, [, read]) => sum + read.deliveries, 0);
      const row = {
        subscribers: report.subscribers,
        lastByteP50: percentile(lastByte, 50),
        lastByteP99: percentile(lastByte, 99),
        lastByteMax: lastByte.at(-1),
        // Each tick's, in the order they came: a slow first tick and a slow steady state read differently.
        lastByteByTick: ticks.map(([ts, read]) => read.lastReadAt - Date.parse(ts)),
        firstByteP50: percentile(firstByte, 50),
        firstByteMax: firstByte.at(-1),
        p50: report.p50,
        p99: report.p99,
        delivered,
        expected,
        lost: expected - delivered,
        connectedRss,
        peakRss,
        rssPerSubscriberKb: Math.round(((connectedRss - idleRss) * 1024) / size),
        serverCpuPerTick: Math.round(serverCpu / TICKS),
        serverCpuPerSubscriberUs: Math.round(((serverCpu / TICKS) * 1000) / size),
        serverSystemCpuPerTick: Math.round(serverSystemCpu / TICKS),
        serverPreemptionsPerTick: Math.round(serverPreemptions / TICKS),
        clientCpuPerTick: Math.round(report.cpuMs / TICKS),
        clientSystemCpuPerTick: Math.round(report.systemCpuMs / TICKS),
        warmLastByte,
      };
      console.error(JSON.stringify(row));
      console.log(
        `| ${row.subscribers.toLocaleString('en')} | ${row.lastByteP50} / ${row.lastByteP99} / ${row.lastByteMax} ` +
          `| ${row.p50} / ${row.p99} | ${delivered.toLocaleString('en')} / ${expected.toLocaleString('en')} ` +
          `| ${row.lost} | ${connectedRss} / ${peakRss} | ${row.rssPerSubscriberKb} | ${row.serverCpuPerTick} ` +
          `| ${row.serverCpuPerSubscriberUs} | ${row.clientCpuPerTick} | ${row.firstByteP50} / ${row.firstByteMax} ` +
          `| ${warmLastByte.join(', ')} |`,
      );
    }
  } finally {
    // Asked to exit rather than killed, so that a `--cpu-prof` of it is written.
    const clientExited = new Promise((resolve) => clients.child.once('exit', resolve));
    clients.child.send({ type: 'exit' } satisfies ClientCommand);
    await Promise.race([clientExited, wait(10_000)]);
    clients.child.kill();
    const exited = new Promise((resolve) => app.once('exit', resolve));
    app.kill('SIGTERM');
    await exited;
    await ws.close();
    await binance.close();
    await coingecko.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
