// A loopback TCP proxy in front of a real server (PostgreSQL, Redis), to make its outages for real:
// - `pass`: bytes flow both ways (optionally late, per direction, to model a slow link);
// - `refuse`: the listening socket is closed, so new connections get ECONNREFUSED; open ones stay;
// - `blackhole`: nothing flows, new connections are accepted and never answered, open ones freeze
//   (a SIGSTOPped server or a partition); whatever was held back flows once the proxy passes again;
// - `reset()`: every open connection is cut with a TCP RST (a server killed or restarted);
// - `tap(listener)`: the listener sees every chunk the clients send, e.g. to count a protocol's commands.
// The client never knows it speaks to a proxy: no mocked driver, the real protocol end to end.
import { connect, createServer, type Server, type Socket } from 'node:net';

export type ProxyMode = 'pass' | 'refuse' | 'blackhole';

interface Pair {
  client: Socket;
  server?: Socket;
  /** Chunks held while black-holed, in order, per direction. */
  toServer: Buffer[];
  toClient: Buffer[];
}

export interface TcpProxy {
  readonly port: number;
  /** `url` with its host and port replaced by the proxy's. */
  url(url: string): string;
  mode(next: ProxyMode): Promise<void>;
  current(): ProxyMode;
  /** Cuts every open connection with a reset; the mode stays as it is. */
  reset(): void;
  /** Delays every chunk going to the client (the server's answers) and to the server, in ms. */
  latency(delays: { toClientMs?: number; toServerMs?: number }): void;
  /**
   * `listener` sees every chunk clients send (as received, before any hold or delay), with the client's
   * socket to tell connections apart; none to stop.
   */
  tap(listener?: (chunk: Buffer, client: Socket) => void): void;
  /** Open connections right now. */
  connections(): number;
  close(): Promise<void>;
}

/** Ports no kernel hands out by itself (Linux's ephemeral range starts at 32768). */
const PROXY_PORTS = { from: 20_000, to: 32_000 };

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let mode: ProxyMode = 'pass';
  let delays = { toClientMs: 0, toServerMs: 0 };
  let tapped: ((chunk: Buffer, client: Socket) => void) | undefined;
  let listener: Server | undefined;
  let port = 0;

  const send = (to: Socket | undefined, chunk: Buffer, delayMs: number) => {
    if (!to || to.destroyed) return;
    if (delayMs > 0) setTimeout(() => !to.destroyed && to.write(chunk), delayMs);
    else to.write(chunk);
  };

  function openUpstream(pair: Pair): void {
    const server = connect({ host: target.host, port: target.port });
    pair.server = server;
    server.setNoDelay(true);
    server.on('data', (chunk: Buffer) => {
      if (mode === 'blackhole') pair.toClient.push(chunk);
      else send(pair.client, chunk, delays.toClientMs);
    });
    server.on('error', () => pair.client.destroy());
    server.on('close', () => pair.client.destroySoon());
    for (const chunk of pair.toServer.splice(0)) send(server, chunk, delays.toServerMs);
  }

  function accept(client: Socket): void {
    const pair: Pair = { client, toServer: [], toClient: [] };
    pairs.add(pair);
    client.setNoDelay(true);
    client.on('data', (chunk: Buffer) => {
      tapped?.(chunk, client);
      if (mode === 'blackhole' || !pair.server) pair.toServer.push(chunk);
      else send(pair.server, chunk, delays.toServerMs);
    });
    client.on('error', () => pair.server?.destroy());
    client.on('close', () => {
      pair.server?.destroy();
      pairs.delete(pair);
    });
    if (mode === 'pass') openUpstream(pair);
  }

  async function listenOn(candidate: number): Promise<void> {
    const server = createServer(accept);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(candidate, '127.0.0.1', () => resolve());
    });
    listener = server;
    port = candidate;
  }

  /**
   * The first time, a free port below the kernel's ephemeral range (32768 and up), taken at random; after a
   * `refuse`, the same one again. A port from that range would be free for anyone while the proxy refuses:
   * the next outgoing connection or `listen(0)` of a test running beside it could take it (EADDRINUSE).
   */
  async function listen(): Promise<void> {
    if (port !== 0) return listenOn(port);
    for (let attempt = 0; ; attempt++) {
      try {
        return await listenOn(PROXY_PORTS.from + Math.floor(Math.random() * (PROXY_PORTS.to - PROXY_PORTS.from)));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 20) throw error;
      }
    }
  }

  async function unlisten(): Promise<void> {
    const closing = listener;
    listener = undefined;
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  }

  await listen();

  return {
    get port() {
      return port;
    },
    url(url: string) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    current: () => mode,
    async mode(next) {
      const previous = mode;
      mode = next;
      if (next === 'refuse') {
        // net.Server.close keeps the open connections; only new ones are refused.
        await unlisten();
        return;
      }
      if (!listener) await listen();
      if (next === 'pass' && previous === 'blackhole') {
        for (const pair of pairs) {
          if (!pair.server) openUpstream(pair);
          else for (const chunk of pair.toServer.splice(0)) send(pair.server, chunk, delays.toServerMs);
          for (const chunk of pair.toClient.splice(0)) send(pair.client, chunk, delays.toClientMs);
        }
      }
    },
    reset() {
      for (const pair of pairs) {
        pair.client.resetAndDestroy();
        pair.server?.resetAndDestroy();
      }
      pairs.clear();
    },
    latency(next) {
      delays = { toClientMs: next.toClientMs ?? 0, toServerMs: next.toServerMs ?? 0 };
    },
    tap(listener) {
      tapped = listener;
    },
    connections: () => pairs.size,
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.server?.destroy();
      }
      pairs.clear();
      await unlisten();
    },
  };
}
