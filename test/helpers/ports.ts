// A loopback port nothing listens on, for "the upstream is down" tests. A port once bound and released is
// in the range the kernel hands out to every `listen(0)` and outgoing connection, so another file's server
// could take it before the test connects (seen once in CI: a 404 where a refusal was asserted). The port is
// therefore taken below that range, which only an explicit bind reaches, and checked to refuse.
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';

/** The lowest port the kernel hands out by itself (Linux's default where it cannot be read). */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 10_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

const LOW = ephemeralLow();

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

export async function closedPort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = LOW - 1 - Math.floor(Math.random() * 8_000);
    if (await refused(port)) return port;
  }
  throw new Error(`no refused loopback port found below ${LOW}`);
}
