// The subscribers of `npm run bench:stream`, in a process of their own so their reading is counted
// apart from the server's CPU time and never delays the venue fake's ticks. Driven over IPC by
// bench/stream.ts: `connect` opens subscribers up to a total, `measure` starts counting, `report`
// answers what was read since. An event's delay is when its bytes were read minus the venue tick's
// event time (`ts`, the fake's `E`), both from this machine's clock.
import http from 'node:http';
import { percentile } from './load.ts';

export type ClientCommand =
  | { type: 'connect'; port: number; total: number; named: string }
  | { type: 'measure' }
  | { type: 'report' }
  | { type: 'exit' };

export interface ClientReport {
  type: 'report';
  subscribers: number;
  /** Price events read per tick (keyed by the tick's `ts`). */
  perTick: Record<string, { deliveries: number; lastReadAt: number }>;
  deliveries: number;
  p50: number;
  p99: number;
  max: number;
  /** This process's CPU time (user + system) over the measurement, in ms. */
  cpuMs: number;
}

const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
let delays: number[] = [];
let perTick = new Map<string, { deliveries: number; lastReadAt: number }>();
let subscribers = 0;
let cpuAtStart = process.cpuUsage();

function record(ts: string, readAt: number): void {
  const tick = perTick.get(ts);
  if (tick) {
    tick.deliveries += 1;
    tick.lastReadAt = Math.max(tick.lastReadAt, readAt);
  } else perTick.set(ts, { deliveries: 1, lastReadAt: readAt });
  delays.push(readAt - Date.parse(ts));
}

/** Opens one subscriber; resolves once its snapshot has arrived. */
function subscribe(port: number, query: string): Promise<void> {
  return new Promise((resolve, reject) => {
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
          if (message.startsWith('event: snapshot')) resolve();
          else if (message.startsWith('event: price') && message.includes('"source":"stream"')) {
            const ts = /"ts":"([^"]+)"/.exec(message)?.[1];
            if (ts) record(ts, readAt);
          }
        }
      });
      response.on('end', () => reject(new Error('the stream ended')));
    });
    request.on('error', reject);
  });
}

async function connect(command: Extract<ClientCommand, { type: 'connect' }>): Promise<void> {
  // Half follow every pair, half the named ones; opened 100 at a time.
  while (subscribers < command.total) {
    const batch = Math.min(100, command.total - subscribers);
    await Promise.all(
      Array.from({ length: batch }, (_, i) =>
        subscribe(command.port, (subscribers + i) % 2 === 0 ? '' : `?symbols=${command.named}`),
      ),
    );
    subscribers += batch;
  }
}

function report(): ClientReport {
  const cpu = process.cpuUsage(cpuAtStart);
  const sorted = Float64Array.from(delays).sort();
  return {
    type: 'report',
    subscribers,
    perTick: Object.fromEntries(perTick),
    deliveries: delays.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? NaN,
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
  };
}

process.on('message', (command: ClientCommand) => {
  const answer = (message: object) => process.send!(message);
  if (command.type === 'connect')
    connect(command).then(
      () => answer({ type: 'connected', subscribers }),
      (error: unknown) => answer({ type: 'error', message: String(error) }),
    );
  else if (command.type === 'measure') {
    delays = [];
    perTick = new Map();
    cpuAtStart = process.cpuUsage();
    answer({ type: 'measuring' });
  } else if (command.type === 'report') answer(report());
  else {
    agent.destroy();
    process.exit(0);
  }
});
