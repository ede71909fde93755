// A small closed-loop HTTP/1.1 load generator: `connections` keep-alive sockets, each sending the
// next GET as soon as the previous answer is complete, until the time or the request count is used
// up. Raw sockets rather than an HTTP client, so the generator costs little next to the server.
import net from 'node:net';

export interface LoadOptions {
  port: number;
  path: string;
  connections: number;
  durationMs: number;
  maxRequests: number;
  /** Extra request headers, e.g. an authorization. */
  headers?: Record<string, string>;
}

export interface LoadResult {
  requests: number;
  errors: number;
  /** Answers with a status other than 200. */
  non200: number;
  /** Answers per status code other than 200, e.g. { '503': 2 }. */
  statuses: Record<string, number>;
  elapsedMs: number;
  /** Latencies in microseconds, sorted. */
  latenciesUs: Float64Array;
}

const HEADER_END = Buffer.from('\r\n\r\n');

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const extra = Object.entries(options.headers ?? {})
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  const request = Buffer.from(
    `GET ${options.path} HTTP/1.1\r\nHost: 127.0.0.1:${options.port}\r\nConnection: keep-alive\r\n${extra}\r\n`,
  );
  const latencies = new Float64Array(options.maxRequests);
  let sent = 0;
  let done = 0;
  let errors = 0;
  let non200 = 0;
  const statuses: Record<string, number> = {};
  const started = performance.now();
  const deadline = started + options.durationMs;

  const connection = () =>
    new Promise<void>((resolve) => {
      const socket = net.connect({ port: options.port, host: '127.0.0.1' });
      socket.setNoDelay(true);
      let buffer: Buffer = Buffer.alloc(0);
      let expected = -1;
      let sentAt = 0n;

      const next = () => {
        if (sent >= options.maxRequests || performance.now() >= deadline) {
          socket.end();
          resolve();
          return;
        }
        sent += 1;
        sentAt = process.hrtime.bigint();
        socket.write(request);
      };

      socket.on('connect', next);
      socket.on('data', (chunk: Buffer) => {
        buffer = buffer.length === 0 ? chunk : (Buffer.concat([buffer, chunk]) as Buffer);
        for (;;) {
          if (expected < 0) {
            const end = buffer.indexOf(HEADER_END);
            if (end < 0) return;
            const head = buffer.subarray(0, end).toString('latin1');
            const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
            if (!length) throw new Error('the load generator needs Content-Length');
            if (!head.startsWith('HTTP/1.1 200')) {
              non200 += 1;
              const code = head.slice(9, 12);
              statuses[code] = (statuses[code] ?? 0) + 1;
            }
            expected = end + HEADER_END.length + Number(length[1]);
          }
          if (buffer.length < expected) return;
          buffer = buffer.subarray(expected);
          expected = -1;
          latencies[done] = Number(process.hrtime.bigint() - sentAt) / 1_000;
          done += 1;
          next();
        }
      });
      socket.on('error', () => {
        errors += 1;
        resolve();
      });
    });

  await Promise.all(Array.from({ length: options.connections }, connection));
  const elapsedMs = performance.now() - started;
  return { requests: done, errors, non200, statuses, elapsedMs, latenciesUs: latencies.subarray(0, done).sort() };
}
