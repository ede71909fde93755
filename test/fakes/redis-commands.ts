// Counts the Redis commands clients send through a TCP proxy (tcp-proxy.ts `tap`), by reading the
// protocol itself (RESP: each command is an array of bulk strings), so that a test can say how many
// round trips to Redis an operation costs without trusting the code under test to say so.
import type { Socket } from 'node:net';

interface Reader {
  pending: Buffer;
  /** The last command this client sent, to tell a script sent again after a NOSCRIPT. */
  last?: string;
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
  /** Per command sent: whether it is an EVAL right after an EVALSHA of the same client (a resend). */
  let resends: boolean[] = [];
  return {
    /** For the proxy's `tap`. */
    listen(chunk: Buffer, client: Socket): void {
      const reader = readers.get(client) ?? { pending: Buffer.alloc(0) };
      readers.set(client, reader);
      const buffer = Buffer.concat([reader.pending, chunk]);
      const parsed = parse(buffer);
      for (const name of parsed.names) {
        names.push(name);
        resends.push(name === 'EVAL' && reader.last === 'EVALSHA');
        reader.last = name;
      }
      reader.pending = buffer.subarray(parsed.used);
    },
    /** The commands sent since the last `take`, by name, in order; starts counting again. */
    take(): string[] {
      const taken = names;
      names = [];
      resends = [];
      return taken;
    },
    /**
     * As `take`, without the EVAL a client sends right after its EVALSHA: the script sent again after
     * Redis answered NOSCRIPT, within the same call. Redis's script cache is shared by every client, and
     * another test's SCRIPT FLUSH may cost any call that one command more: counts of calls use this.
     */
    takeCalls(): string[] {
      const taken = names.filter((_, i) => !resends[i]);
      names = [];
      resends = [];
      return taken;
    },
  };
}
