// The subscribers of `npm run bench:stream`, in a process of their own so their reading is counted
// apart from the server's CPU time and never delays the venue fake's ticks. Driven over IPC by
// bench/stream.ts: `connect` opens subscribers up to a total, `measure` starts counting, `report`
// answers what was read since. An event's delay is when its bytes were read minus the venue tick's
// event time (`ts`, the fake's `E`), both from this machine's clock. Each subscriber reads a plain
// TCP socket into one buffer shared by all of them (`onread`: no allocation per read) and only looks
// for the `"ts":"` of each event, reading its time from the digits: the client must cost less than
// the server, as it shares the machine's cores with it.
import { connect, type Socket } from 'node:net';

export type ClientCommand =
  | { type: 'connect'; port: number; total: number; named: string }
  | { type: 'measure' }
  | { type: 'report' }
  | { type: 'exit' };

export interface ClientReport {
  type: 'report';
  subscribers: number;
  /** Price events read per tick (keyed by the tick's `ts`), and when its first and last were read. */
  perTick: Record<string, { deliveries: number; firstReadAt: number; lastReadAt: number }>;
  deliveries: number;
  p50: number;
  p99: number;
  max: number;
  /** This process's CPU time (user + system) over the measurement, in ms. */
  cpuMs: number;
  /** Its system share: the socket reads' calls. */
  systemCpuMs: number;
}

/** Delays counted per millisecond (the last slot holds everything longer). */
const histogram = new Uint32Array(60_000);
interface Tick {
  ts: string;
  ms: number;
  deliveries: number;
  firstReadAt: number;
  lastReadAt: number;
}
/** The ticks read since `measure`, by the time of day in their `ts` (ms; a run lasts minutes, not days). */
let perTick = new Map<number, Tick>();
/** Every socket reads into this one buffer; what a read leaves unfinished is copied out. */
const READ_BUFFER = Buffer.allocUnsafe(256 * 1024);
const sockets = new Set<Socket>();
let cpuAtStart = process.cpuUsage();
const TS = Buffer.from('"ts":"');
const SNAPSHOT = Buffer.from('event: snapshot');
const END = Buffer.from('\n\n');
const OK = Buffer.from('HTTP/1.1 200');

/** `n` decimal digits of `data` from `at`. */
function digits(data: Buffer, at: number, n: number): number {
  let value = 0;
  for (let i = 0; i < n; i++) value = value * 10 + data[at + i]! - 48;
  return value;
}

/** Counts every price event in `data` before `end` (whole events only), read at `readAt`. */
function count(data: Buffer, end: number, readAt: number): void {
  let at = data.indexOf(TS);
  let last = -1;
  let tick: Tick | undefined;
  let delay = 0;
  while (at >= 0 && at < end) {
    // `YYYY-MM-DDTHH:MM:SS.mmmZ`: the time of day from its digits, without making a string.
    const t = at + TS.length;
    const key =
      ((digits(data, t + 11, 2) * 60 + digits(data, t + 14, 2)) * 60 + digits(data, t + 17, 2)) * 1000 +
      digits(data, t + 20, 3);
    if (key !== last) {
      last = key;
      tick = perTick.get(key);
      if (!tick) {
        const ts = data.toString('latin1', t, t + 24);
        perTick.set(key, (tick = { ts, ms: Date.parse(ts), deliveries: 0, firstReadAt: readAt, lastReadAt: 0 }));
      }
      tick.firstReadAt = Math.min(tick.firstReadAt, readAt);
      tick.lastReadAt = Math.max(tick.lastReadAt, readAt);
      delay = Math.min(histogram.length - 1, Math.max(0, readAt - tick.ms));
    }
    tick!.deliveries += 1;
    histogram[delay]! += 1;
    at = data.indexOf(TS, t);
  }
}

/**
 * Whether `data` from `from` on is only HTTP chunk framing (the CRLF that closes a chunk, the next
 * chunk's hex size line) and so nothing to keep for the next read. Nearly every read ends so: kept, it
 * was copied out and copied again in front of the next read, an allocation and two copies per read
 * that cost the client more than its counting. A rest holding any other byte (a `"`, a `:`) is part
 * of an event and kept; dropping a rest of hex digits alone (at most the `e` of `event:`) loses no
 * `"ts":"`, the only thing counted.
 */
function onlyFraming(data: Buffer, from: number): boolean {
  for (let i = from; i < data.length; i++) {
    const c = data[i]!;
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || c === 13 || c === 10)) return false;
  }
  return true;
}

/**
 * Opens one subscriber on a plain TCP socket (the HTTP client's parsing would cost more than the
 * server's writing); resolves once its snapshot has arrived. Only what follows it is counted.
 */
function subscribe(port: number, query: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let started = false;
    /** The unfinished end of the last read, copied out of the shared buffer. */
    let carry: Buffer | undefined;
    const read = (chunk: Buffer) => {
      const readAt = Date.now();
      let data = carry ? Buffer.concat([carry, chunk]) : chunk;
      carry = undefined;
      if (!started) {
        if (!data.subarray(0, 12).equals(OK.subarray(0, Math.min(12, data.length))))
          return reject(new Error(`stream answered ${data.toString('latin1', 0, 40)}`));
        // The snapshot (and anything before it) is skipped: from its end on, events are counted.
        const snapshot = data.indexOf(SNAPSHOT);
        const end = snapshot < 0 ? -1 : data.indexOf(END, snapshot);
        if (end < 0) {
          carry = Buffer.from(data);
          return;
        }
        started = true;
        resolve();
        data = data.subarray(end + 2);
      }
      // Whole events only; the rest waits for the next read, unless it holds nothing of an event.
      const cut = data.lastIndexOf(END);
      if (cut < 0) {
        carry = Buffer.from(data);
        return;
      }
      count(data, cut + 2, readAt);
      if (!onlyFraming(data, cut + 2)) carry = Buffer.from(data.subarray(cut + 2));
    };
    const socket = connect({
      port,
      host: '127.0.0.1',
      onread: {
        buffer: READ_BUFFER,
        callback: (n) => {
          read(READ_BUFFER.subarray(0, n));
          return true;
        },
      },
    });
    sockets.add(socket);
    socket.write(`GET /api/v1/market/stream${query} HTTP/1.1\r\nHost: bench\r\n\r\n`);
    socket.on('error', reject);
    socket.on('close', () => sockets.delete(socket));
  });
}
async function open(command: Extract<ClientCommand, { type: 'connect' }>): Promise<void> {
  // Half follow every pair, half the named ones; opened 100 at a time.
  while (sockets.size < command.total) {
    const from = sockets.size;
    const batch = Math.min(100, command.total - from);
    await Promise.all(
      Array.from({ length: batch }, (_, i) =>
        subscribe(command.port, (from + i) % 2 === 0 ? '' : `?symbols=${command.named}`),
      ),
    );
  }
}

/** The delay under which `p` percent of the counted events were read. */
function percentileOf(p: number, total: number): number {
  const rank = Math.ceil((p / 100) * total);
  let seen = 0;
  for (let ms = 0; ms < histogram.length; ms++) {
    seen += histogram[ms]!;
    if (seen >= rank) return ms;
  }
  return NaN;
}

function report(): ClientReport {
  const cpu = process.cpuUsage(cpuAtStart);
  const deliveries = histogram.reduce((sum, n) => sum + n, 0);
  let max = 0;
  for (let ms = 0; ms < histogram.length; ms++) if (histogram[ms]! > 0) max = ms;
  return {
    type: 'report',
    subscribers: sockets.size,
    perTick: Object.fromEntries(
      [...perTick.values()].map(({ ts, deliveries, firstReadAt, lastReadAt }) => [
        ts,
        { deliveries, firstReadAt, lastReadAt },
      ]),
    ),
    deliveries,
    p50: percentileOf(50, deliveries),
    p99: percentileOf(99, deliveries),
    max,
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    systemCpuMs: Math.round(cpu.system / 1000),
  };
}

process.on('message', (command: ClientCommand) => {
  const answer = (message: object) => process.send!(message);
  if (command.type === 'connect')
    open(command).then(
      () => answer({ type: 'connected', subscribers: sockets.size }),
      (error: unknown) => answer({ type: 'error', message: String(error) }),
    );
  else if (command.type === 'measure') {
    histogram.fill(0);
    perTick = new Map();
    cpuAtStart = process.cpuUsage();
    answer({ type: 'measuring' });
  } else if (command.type === 'report') answer(report());
  else {
    for (const socket of sockets) socket.destroy();
    process.exit(0);
  }
});
