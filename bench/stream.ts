// The price stream under 1,000 subscribers: the app started as `npm start` starts it, fed by the
// loopback Binance WebSocket fake, which pushes every pair's new price once a second (as Binance's
// mini-ticker stream does). Each subscriber is a plain HTTP client reading the SSE text; the delay of
// an event is the time it is read minus the upstream tick's event time (`ts`, the fake's `E`), both
// from this machine's clock. Reported: p50/p99/max delay, deliveries, and the server's RSS.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startBinanceFake } from '../test/fakes/binance.ts';
import { startBinanceWsFake } from '../test/fakes/binance-ws.ts';
import { startCoinGeckoFake } from '../test/fakes/coingecko.ts';
import { percentile } from './load.ts';
import { freePort } from './ports.ts';

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1_000);
const TICKS = Number(process.env.BENCH_TICKS ?? 20);
const TICK_MS = Number(process.env.BENCH_TICK_MS ?? 1_000);
const NAMED = 'BTCUSDT,ETHUSDT,BNBUSDT';
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!;
  return Math.round(Number(line.split(/\s+/)[1]) / 1024);
}

function startApp(env: Record<string, string>): ChildProcess {
  const script = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } })
    .scripts.start;
  const [, ...args] = script.split(/\s+/);
  return spawn(process.execPath, args, {
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

interface Subscriber {
  snapshot: boolean;
  prices: number;
}

function subscribe(port: number, query: string, delays: number[], agent: http.Agent): Promise<Subscriber> {
  return new Promise((resolve, reject) => {
    const state: Subscriber = { snapshot: false, prices: 0 };
    const request = http.get({ host: '127.0.0.1', port, path: `/api/v1/market/stream${query}`, agent }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`stream answered ${response.statusCode}`));
      response.setEncoding('utf8');
      let buffer = '';
      response.on('data', (chunk: string) => {
        const readAt = Date.now();
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const message = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (message.startsWith('event: snapshot')) {
            state.snapshot = true;
            resolve(state);
          } else if (message.startsWith('event: price')) {
            const ts = /"ts":"([^"]+)"/.exec(message)?.[1];
            if (ts && message.includes('"source":"stream"')) {
              state.prices += 1;
              delays.push(readAt - Date.parse(ts));
            }
          }
        }
      });
    });
    request.on('error', reject);
  });
}

async function main(): Promise<void> {
  const binance = await startBinanceFake();
  const coingecko = await startCoinGeckoFake();
  const ws = await startBinanceWsFake();
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tp-bench-stream-'));
  const app = startApp({
    PORT: String(port),
    DATA_DIR: dataDir,
    BINANCE_API_URL: binance.url,
    COINGECKO_API_URL: coingecko.url,
    BINANCE_WS_URL: ws.url,
    STREAM_MAX_CONNECTIONS: String(SUBSCRIBERS + 100),
  });
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  try {
    await waitForHttp(port, '/healthz');
    ws.push();
    await waitForHttp(port, '/api/v1/market/prices?symbols=BTCUSDT');
    const idleRss = rssMb(app.pid!);
    const delays: number[] = [];
    const subscribers: Subscriber[] = [];
    for (let i = 0; i < SUBSCRIBERS; i += 50) {
      const batch = Array.from({ length: Math.min(50, SUBSCRIBERS - i) }, (_, j) =>
        subscribe(port, (i + j) % 2 === 0 ? '' : `?symbols=${NAMED}`, delays, agent),
      );
      subscribers.push(...(await Promise.all(batch)));
    }
    const connectedRss = rssMb(app.pid!);
    delays.length = 0;
    let peakRss = connectedRss;
    const pairs = ws.symbols.length;
    for (let tick = 1; tick <= TICKS; tick++) {
      for (const symbol of ws.symbols)
        symbol.price = (Number(symbol.price) * (1 + (tick % 2 === 0 ? 0.001 : -0.001))).toFixed(8);
      ws.push();
      await new Promise((resolve) => setTimeout(resolve, TICK_MS));
      peakRss = Math.max(peakRss, rssMb(app.pid!));
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const expected = (SUBSCRIBERS / 2) * pairs * TICKS + (SUBSCRIBERS / 2) * NAMED.split(',').length * TICKS;
    delays.sort((a, b) => a - b);
    const row = {
      subscribers: subscribers.length,
      pairs,
      ticks: TICKS,
      deliveries: delays.length,
      expected,
      p50: percentile(Float64Array.from(delays), 50),
      p99: percentile(Float64Array.from(delays), 99),
      max: delays.at(-1),
      idleRss,
      connectedRss,
      peakRss,
    };
    console.log(JSON.stringify(row));
    console.log(
      `| ${row.subscribers} | ${row.pairs} | ${row.ticks} | ${row.deliveries.toLocaleString('en')} ` +
        `/ ${row.expected.toLocaleString('en')} | ${row.p50} | ${row.p99} | ${row.max} | ${row.idleRss} ` +
        `| ${row.connectedRss} | ${row.peakRss} |`,
    );
  } finally {
    agent.destroy();
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
