// A body without end, for the bounds of our readers of outside answers (decisions 986, 1042): a fake
// writes it chunk by chunk as the client reads it, with no content-length, until ENDLESS_BODY_BYTES or
// until the client hangs up. A reader without a bound would hold all of it; `sent` shows what was written.
import type { ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const ENDLESS_BODY_BYTES = 256 * 1024 * 1024;

/** Bytes of endless bodies written so far, and how many were written to their end (read whole). */
export interface EndlessTally {
  sent: number;
  completed: number;
}

/** Writes `status` and a body that starts with `head` and runs on with `x`s, as fast as the client reads. */
export async function writeEndless(
  res: ServerResponse,
  status: number,
  tally: EndlessTally,
  head = '',
  contentType = 'text/plain; charset=utf-8',
): Promise<void> {
  res.writeHead(status, { 'content-type': contentType });
  const chunk = Buffer.alloc(64 * 1024, 'x');
  res.write(head);
  tally.sent += head.length;
  while (tally.sent < ENDLESS_BODY_BYTES && !res.destroyed) {
    tally.sent += chunk.length;
    if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
  }
  if (res.destroyed) return;
  res.end();
  tally.completed += 1;
}

export interface EndlessServer extends EndlessTally {
  url: string;
  /** Requests received. */
  requests: number;
  close(): Promise<void>;
}

/** A loopback server that answers every request with `status` and an endless body. */
export async function startEndlessServer(status: number, head = ''): Promise<EndlessServer> {
  const state = { sent: 0, completed: 0, requests: 0 };
  const server: Server = createServer((req, res) => {
    state.requests += 1;
    req.resume();
    void writeEndless(res, status, state, head);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
