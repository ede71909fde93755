// Counts the Redis commands clients send through a TCP proxy (tcp-proxy.ts `tap`), by reading the
// protocol itself (RESP: each command is an array of bulk strings), so that a test can say how many
// round trips to Redis an operation costs without trusting the code under test to say so.
import type { Socket } from 'node:net';

interface Reader {
  pending: Buffer;
}

/** The complete commands at the head of `buffer`, by name, and the bytes they took. */
function parse(buffer: Buffer): { names: string[]; used: number } {
  const names: string[] = [];
  let at = 0;
  for (;;) {
    const start = at;
    const line = (from: number) => {
      const end = buffer.indexOf('\r\n', from);
      return end < 0 ? undefined : { text: buffer.toString('latin1', from, end), next: end + 2 };
    };
    const header = line(at);
    if (!header) return { names, used: start };
    if (!header.text.startsWith('*')) throw new Error(`not a RESP command: ${header.text.slice(0, 40)}`);
    const count = Number(header.text.slice(1));
    at = header.next;
    const parts: string[] = [];
    for (let i = 0; i < count; i++) {
      const size = line(at);
      if (!size) return { names, used: start };
      const length = Number(size.text.slice(1));
      if (buffer.length < size.next + length + 2) return { names, used: start };
      parts.push(buffer.toString('utf8', size.next, size.next + length));
      at = size.next + length + 2;
    }
    names.push((parts[0] ?? '').toUpperCase());
  }
}

export function redisCommandCounter() {
  const readers = new WeakMap<Socket, Reader>();
  let names: string[] = [];
  return {
    /** For the proxy's `tap`. */
    listen(chunk: Buffer, client: Socket): void {
      const reader = readers.get(client) ?? { pending: Buffer.alloc(0) };
      readers.set(client, reader);
      const buffer = Buffer.concat([reader.pending, chunk]);
      const parsed = parse(buffer);
      names.push(...parsed.names);
      reader.pending = buffer.subarray(parsed.used);
    },
    /** The commands sent since the last `take`, by name, in order; starts counting again. */
    take(): string[] {
      const taken = names;
      names = [];
      return taken;
    },
  };
}
