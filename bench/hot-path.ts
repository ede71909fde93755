// The cached answer's path alone, counted in instructions: valgrind's callgrind counts the same on a busy
// machine as on a quiet one, where CPU time per answer moves with the load. Each server runs under
// callgrind with counting off while it starts; then 20,000 answers of warm-up (so that V8 has compiled
// the path; in two runs of the load, so that the code Node deoptimises when the first connections close
// is optimised again before counting), the counts zeroed, 10,000 answers counted. Garbage collection
// and V8's compiler threads are in the count, as they are in the server's CPU time.
//   node --import tsx bench/hot-path.ts [checkout ...]
// measures the bare node:http server (bench/bare-server.ts's handler), the same bare server sending the
// headers a cached answer carries (the floor for any code that sends them), this checkout, and any other
// checkout given: `createHttpServer`, the micro-cache and the conventions hooks from that checkout's
// src/, on Fastify, one route opted in to the micro-cache, so that every counted answer is a cache hit.
// Needs valgrind. Method and results: bench/README.md.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runLoad } from './load.ts';
import { freePort } from './ports.ts';

const URL_PATH = '/api/v1/market/ticker?limit=20';
const CONTENT_TYPE = 'application/json; charset=utf-8';
const WARMUP = Number(process.env.BENCH_HOT_WARMUP ?? 20_000);
const COUNTED = Number(process.env.BENCH_HOT_ANSWERS ?? 10_000);
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/** `--serve <checkout|bare|bare-headers> <port> <body file>`: the server under count. */
async function serve(target: string, port: number, body: Buffer): Promise<void> {
  if (target === 'bare-headers') {
    // The cached answer's headers, in its order, with Node's own request ids.
    const { SECURITY_HEADERS } = await import(`${root}/src/platform/http/http-conventions.ts`);
    const headers: string[] = [
      'content-type',
      CONTENT_TYPE,
      ...Object.entries(SECURITY_HEADERS as Record<string, string>).flat(),
    ];
    headers.push('content-length', String(body.length), 'x-request-id', '', 'age', '0');
    createServer((_request, response) => {
      headers[headers.length - 3] = randomUUID();
      response.writeHead(200, headers);
      response.end(body);
    }).listen(port, '127.0.0.1');
    return;
  }
  if (target === 'bare') {
    createServer((_request, response) => {
      response.writeHead(200, { 'content-type': CONTENT_TYPE, 'content-length': body.length });
      response.end(body);
    }).listen(port, '127.0.0.1');
    return;
  }
  const { default: Fastify } = await import('fastify');
  const { createHttpServer } = await import(`${target}/src/platform/http/server.ts`);
  const { createMicroCache } = await import(`${target}/src/platform/http/micro-cache.ts`);
  const { registerHttpConventions, requestIdFor } = await import(`${target}/src/platform/http/http-conventions.ts`);
  const { createMetrics } = await import(`${target}/src/platform/observability/metrics.ts`);
  const metrics = createMetrics(true);
  const cache = createMicroCache();
  // As src/app.ts counts the answers the cache serves.
  const served = metrics.requestCounter('GET', '/api/v1/market/ticker', '200');
  cache.onServed = () => served.inc();
  const app = Fastify({
    genReqId: requestIdFor,
    serverFactory: (handler) =>
      createHttpServer(handler, (request: IncomingMessage, response: ServerResponse) => cache.serve(request, response)),
  });
  registerHttpConventions(app, metrics);
  cache.register(app);
  // An hour's window: no answer counted is a miss.
  app.get('/api/v1/market/ticker', { config: { microCacheMs: 3_600_000 } }, (_request, reply) => {
    void reply.type(CONTENT_TYPE).send(body);
  });
  await app.listen({ port, host: '127.0.0.1' });
}

async function answered(port: number, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 3_000; i++) {
    if (child.exitCode !== null) throw new Error(`the server on port ${port} exited`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}${URL_PATH}`, { signal: AbortSignal.timeout(5_000) })).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`nothing answered on port ${port}`);
}

/** Instructions per counted answer of one server. */
async function count(name: string, target: string, bodyFile: string, dir: string): Promise<number> {
  const port = await freePort();
  const prefix = path.join(dir, `callgrind.${name}`);
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      '--instr-atstart=no',
      '--smc-check=all-non-file',
      `--callgrind-out-file=${prefix}.%p`,
      process.execPath,
      '--import',
      'tsx',
      path.join(root, 'bench/hot-path.ts'),
      '--serve',
      target,
      String(port),
      bodyFile,
    ],
    { cwd: root, stdio: ['ignore', 'ignore', 'ignore'] },
  );
  try {
    await answered(port, child);
    const control = (option: string) =>
      execFileSync('callgrind_control', [option, String(child.pid)], { timeout: 60_000, stdio: 'ignore' });
    const load = async (answers: number) => {
      const result = await runLoad({
        port,
        path: URL_PATH,
        connections: 10,
        durationMs: 3_600_000,
        maxRequests: answers,
      });
      if (result.requests !== answers || result.errors + result.non200 > 0)
        throw new Error(`${name}: ${result.requests} answers, ${result.errors} errors, ${result.non200} not 200`);
    };
    control('--instr=on');
    await load(WARMUP / 2);
    await load(WARMUP / 2);
    control('--zero');
    await load(COUNTED);
    control('--dump');
    const dumps = readdirSync(dir).filter((file) => file.startsWith(`callgrind.${name}.`) && file.endsWith('.1'));
    const summary = /^summary: (\d+)$/m.exec(readFileSync(path.join(dir, dumps[0]!), 'utf8'));
    if (!summary) throw new Error(`${name}: no callgrind summary`);
    return Number(summary[1]) / COUNTED;
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

async function main(): Promise<void> {
  const [first, target, port, bodyFile] = process.argv.slice(2);
  if (first === '--serve') {
    await serve(target!, Number(port), readFileSync(bodyFile!));
    process.on('SIGTERM', () => process.exit(0));
    return;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'tp-hot-path-'));
  try {
    // A ticker-shaped answer of about scenario 1's size (6,436 bytes); what it says does not change the count.
    const row = (i: number) => ({ symbol: `PAIR${i}USDT`, price: 1000 + i, change_percent: -1.8, volume: 250000 });
    let body = '[]';
    for (let rows = 1; body.length < 6_436; rows++)
      body = JSON.stringify(Array.from({ length: rows }, (_, i) => row(i)));
    const bodyFile = path.join(dir, 'ticker.json');
    writeFileSync(bodyFile, body);
    const targets: [string, string][] = [
      ['bare', 'bare'],
      ["bare, the cached answer's headers", 'bare-headers'],
      ['this checkout', root],
      ...process.argv.slice(2).map((checkout): [string, string] => [checkout, path.resolve(checkout)]),
    ];
    console.log(`${WARMUP} answers of warm-up, then ${COUNTED} counted; node ${process.version}\n`);
    console.log('| server | instructions per answer | over bare | over bare with the headers |\n|---|---|---|---|');
    const floors: number[] = [];
    for (const [k, [name, target]] of targets.entries()) {
      const perAnswer = await count(`server${k}`, target, bodyFile, dir);
      const over = floors.map((floor) => `${(perAnswer / floor).toFixed(3)}×`);
      if (k < 2) floors.push(perAnswer);
      console.log(`| ${[name, Math.round(perAnswer), ...over, '', ''].slice(0, 4).join(' | ')} |`);
    }
    if (process.env.BENCH_HOT_KEEP) console.log(`\ncallgrind files kept in ${dir}`);
  } finally {
    if (!process.env.BENCH_HOT_KEEP) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
