// One writer or two for the price stream's fan-out (decision 510), outside the app: a server that
// speaks just enough HTTP for bench/stream-client.ts, the subscribers of `npm run bench:stream`, in a
// process of their own. Every tick (600 ms) the server writes one SSE frame as one HTTP chunk to each
// subscriber: the 18 pairs' events (about 1,700 bytes) to those following every pair, the 3 named
// pairs' (about 300) to the others, as the app's fan-out does (decisions 224, 285, 330).
//
//   BENCH_WRITERS=1  every socket written by the server process, in one pass (today's design);
//   BENCH_WRITERS=2  every second subscriber handed, once its request is read, to a child process
//                    (`subprocess.send(message, socket)`); each tick the server sends the child the
//                    tick's two texts in one IPC message, then writes its own half while the child
//                    writes the other.
//
// Reported (one JSON line on stdout): tick → first and last byte p50/p99/max as the subscribers read
// them, events delivered against expected, CPU per tick of each writer and of the subscribers' process
// (user and system), preemptions per tick, RSS, and for two writers the IPC hop (the tick's send to
// the child's receipt) and when each writer's pass ended. Knobs: BENCH_SUBSCRIBERS (10000),
// BENCH_TICKS (40), BENCH_TICK_MS (600), BENCH_PIN_CPUS (`SERVER:CLIENT[:SECOND]` CPU lists for
// `taskset`, each may be empty: `0:1` as in `npm run bench:stream`, `0::1` the two writers on a core
// each and the subscribers unpinned).
import { execFileSync, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { percentile } from './load.ts';
import type { ClientCommand, ClientReport } from './stream-client.ts';
import { startSubscribers } from './stream-subscribers.ts';

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 10_000);
const TICKS = Number(process.env.BENCH_TICKS ?? 40);
const TICK_MS = Number(process.env.BENCH_TICK_MS ?? 600);
const WRITERS = Number(process.env.BENCH_WRITERS ?? 1);
const [SERVER_CPUS, CLIENT_CPUS, SECOND_CPUS] = (process.env.BENCH_PIN_CPUS ?? '').split(':');
/** Ticks before the measured ones: the sockets' first writes and the JIT's warming are not counted. */
const WARM_TICKS = 3;
const PAIRS = 18;
const NAMED = 'BTCUSDT,ETHUSDT,BNBUSDT';
/**
 * Checked before each write as the app's registry checks STREAM_MAX_BUFFER_BYTES (its cost is part of
 * the pass); no subscriber here reads slowly enough to reach it.
 */
const MAX_BUFFER_BYTES = 256 * 1024;

/** High-resolution wall-clock time in ms, comparable between processes of this machine. */
const clock = () => performance.timeOrigin + performance.now();

/** User and system CPU time of a process so far, in ms (`/proc/<pid>/stat`, clock ticks of 10 ms). */
function cpuMs(pid: number): { user: number; system: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
}

/** A field of `/proc/<pid>/status`: `nonvoluntary_ctxt_switches` (preempted), `VmRSS` (kB). */
function status(pid: number, field: string): number {
  return Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
}

/** Text as one HTTP/1.1 chunk (size line, data, CRLF), as the app's `sseFrame` encodes it. */
function chunk(text: string): Buffer {
  const length = Buffer.byteLength(text);
  return Buffer.from(`${length.toString(16)}\r\n${text}\r\n`);
}

/** A tick's two texts: every pair's events, and the named pairs'. */
function tickTexts(ts: string, tick: number): { every: string; named: string } {
  const event = (symbol: string, i: number) =>
    `event: price\ndata: ${JSON.stringify({ symbol, price: (100 + i + tick / 1000).toFixed(8), ts, source: 'stream' })}\n\n`;
  const named = NAMED.split(',');
  const all = [...named, ...Array.from({ length: PAIRS - named.length }, (_, i) => `PAIR${i}USDT`)];
  return { every: all.map(event).join(''), named: named.map(event).join('') };
}

const HEAD =
  'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream; charset=utf-8\r\ncache-control: no-store\r\n' +
  'connection: close\r\ntransfer-encoding: chunked\r\n\r\n';
const OPENING = Buffer.concat([
  Buffer.from(HEAD),
  chunk('retry: 1000\n\nevent: snapshot\ndata: {"prices":[],"count":0}\n\n'),
]);

/** One writer's subscribers, by the frame they get, and its pass over them. */
function createFanOut() {
  const every: Socket[] = [];
  const named: Socket[] = [];
  return {
    add(socket: Socket, followsNamed: boolean): void {
      socket.setNoDelay(true);
      socket.on('error', () => socket.destroy());
      socket.write(OPENING);
      (followsNamed ? named : every).push(socket);
    },
    /** Writes each subscriber its frame, as the app's registry does: bound checked, then one write. */
    write(texts: { every: string; named: string }): void {
      for (const [sockets, frame] of [
        [every, chunk(texts.every)],
        [named, chunk(texts.named)],
      ] as const)
        for (const socket of sockets) {
          if (socket.destroyed) continue;
          if (socket.writableLength > MAX_BUFFER_BYTES) socket.destroy();
          else socket.write(frame);
        }
    },
    get size() {
      return every.length + named.length;
    },
  };
}

type WriterMessage =
  | { type: 'subscriber'; named: boolean }
  | { type: 'tick'; every: string; named: string; sentAt: number }
  | { type: 'exit' };

/** The second writer: subscribers come with their socket, ticks as one message each. */
function writer(): void {
  const fanOut = createFanOut();
  const hops: number[] = [];
  const passes: number[] = [];
  process.on('message', (message: WriterMessage, socket?: Socket) => {
    if (message.type === 'subscriber') {
      // The subscriber may have gone while its socket was on its way.
      if (socket) fanOut.add(socket, message.named);
    } else if (message.type === 'tick') {
      const receivedAt = clock();
      fanOut.write(message);
      hops.push(receivedAt - message.sentAt);
      passes.push(clock() - message.sentAt);
    } else {
      process.send!({ type: 'report', hops, passes, subscribers: fanOut.size }, () => process.exit(0));
    }
  });
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (ms: number) => Math.round(ms * 10) / 10;
const sorted = (values: number[]) => Float64Array.from(values).sort();

async function main(): Promise<void> {
  const own = createFanOut();
  const second = WRITERS === 2 ? fork(new URL(import.meta.url).pathname, ['writer'], { stdio: 'inherit' }) : null;
  let accepted = 0;
  // The server reads each request (as the app's route does before its stream starts), then keeps the
  // socket or hands it to the second writer; the subscribers alternate between every pair and the named ones.
  const server = createServer((socket) => {
    const mine = second === null || accepted++ % 2 === 0;
    let request = '';
    const onData = (data: Buffer) => {
      request += data.toString('latin1');
      if (!request.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      const named = request.startsWith('GET /api/v1/market/stream?symbols=');
      if (mine) own.add(socket, named);
      else second!.send({ type: 'subscriber', named } satisfies WriterMessage, socket);
    };
    socket.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const clients = startSubscribers(CLIENT_CPUS);
  // Pinned once every process has started (a child inherits its parent's CPUs), all threads of each:
  // the second writer is forked for its IPC channel, not started through `taskset`.
  const pin = (cpus: string | undefined, pid: number) =>
    cpus && execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
  pin(SERVER_CPUS, process.pid);
  if (second) pin(SECOND_CPUS, second.pid!);
  try {
    await clients.ask({ type: 'connect', port, total: SUBSCRIBERS, named: NAMED });
    await wait(1_000);
    const passes: number[] = [];
    let startCpu = { own: cpuMs(process.pid), second: second ? cpuMs(second.pid!) : null };
    let startPreempted = { own: status(process.pid, 'nonvoluntary_ctxt_switches'), second: 0 };
    let peakRss = 0;
    for (let tick = 1; tick <= WARM_TICKS + TICKS; tick++) {
      if (tick === WARM_TICKS + 1) {
        await clients.ask({ type: 'measure' });
        startCpu = { own: cpuMs(process.pid), second: second ? cpuMs(second.pid!) : null };
        startPreempted = {
          own: status(process.pid, 'nonvoluntary_ctxt_switches'),
          second: second ? status(second.pid!, 'nonvoluntary_ctxt_switches') : 0,
        };
        passes.length = 0;
      }
      const at = clock();
      const texts = tickTexts(new Date(Math.round(at)).toISOString(), tick);
      second?.send({ type: 'tick', ...texts, sentAt: at } satisfies WriterMessage);
      own.write(texts);
      passes.push(clock() - at);
      const rss = status(process.pid, 'VmRSS') + (second ? status(second.pid!, 'VmRSS') : 0);
      peakRss = Math.max(peakRss, rss);
      await wait(TICK_MS - (clock() - at));
    }
    await wait(1_000);
    const ownCpu = cpuMs(process.pid);
    const secondCpu = second ? cpuMs(second.pid!) : null;
    const preempted = {
      own: status(process.pid, 'nonvoluntary_ctxt_switches') - startPreempted.own,
      second: second ? status(second.pid!, 'nonvoluntary_ctxt_switches') - startPreempted.second : 0,
    };
    const report = (await clients.ask({ type: 'report' })) as unknown as ClientReport;
    const secondReport = second
      ? await new Promise<{ hops: number[]; passes: number[]; subscribers: number }>((resolve) => {
          second.once('message', resolve);
          second.send({ type: 'exit' } satisfies WriterMessage);
        })
      : null;
    const ticks = Object.entries(report.perTick);
    const lastByte = sorted(ticks.map(([ts, read]) => read.lastReadAt - Date.parse(ts)));
    const firstByte = sorted(ticks.map(([ts, read]) => read.firstReadAt - Date.parse(ts)));
    const every = Math.ceil(SUBSCRIBERS / 2);
    const expected = (every * PAIRS + (SUBSCRIBERS - every) * NAMED.split(',').length) * TICKS;
    const perTick = (end: { user: number; system: number }, start: { user: number; system: number }) => ({
      user: Math.round((end.user - start.user) / TICKS),
      system: Math.round((end.system - start.system) / TICKS),
    });
    const secondHops = sorted(secondReport?.hops.slice(WARM_TICKS) ?? []);
    const secondPasses = sorted(secondReport?.passes.slice(WARM_TICKS) ?? []);
    console.log(
      JSON.stringify({
        writers: WRITERS,
        pinned: process.env.BENCH_PIN_CPUS ?? '',
        subscribers: report.subscribers,
        split: second ? [own.size, secondReport!.subscribers] : [own.size],
        ticks: ticks.length,
        lastByte: [percentile(lastByte, 50), percentile(lastByte, 99), lastByte.at(-1)],
        firstByte: [percentile(firstByte, 50), percentile(firstByte, 99), firstByte.at(-1)],
        lastByteByTick: ticks.map(([ts, read]) => read.lastReadAt - Date.parse(ts)),
        delivered: report.deliveries,
        expected,
        serverCpuPerTick: perTick(ownCpu, startCpu.own),
        secondCpuPerTick: secondCpu ? perTick(secondCpu, startCpu.second!) : null,
        clientCpuPerTick: {
          user: Math.round((report.cpuMs - report.systemCpuMs) / TICKS),
          system: Math.round(report.systemCpuMs / TICKS),
        },
        preemptionsPerTick: [Math.round(preempted.own / TICKS), Math.round(preempted.second / TICKS)],
        passEnd: [percentile(sorted(passes), 50), percentile(sorted(passes), 99)].map(round),
        secondPassEnd: second ? [percentile(secondPasses, 50), percentile(secondPasses, 99)].map(round) : null,
        ipcHop: second ? [percentile(secondHops, 50), percentile(secondHops, 99), secondHops.at(-1)!].map(round) : null,
        peakRssMb: Math.round(peakRss / 1024),
      }),
    );
  } finally {
    clients.child.send({ type: 'exit' } satisfies ClientCommand);
    second?.kill();
    server.close();
    setTimeout(() => process.exit(0), 2_000).unref();
  }
}

if (process.argv[2] === 'writer') writer();
else await main();
