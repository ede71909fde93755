// A loopback Binance market stream server speaking the all-market mini-ticker stream: raw
// `/ws/!miniTicker@arr` (each frame a JSON array of 24hrMiniTicker events) and the combined form
// `/stream?streams=!miniTicker@arr` (each frame `{stream, data}`). Like Binance it only sends the
// symbols that changed, answers unknown streams with an HTTP error on the upgrade, and can drop or
// refuse connections so that clients' reconnects can be tested.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { marketSymbols, miniTicker, type FakeSymbol } from './binance-market-data.ts';

const STREAM = '!miniTicker@arr';

interface BinanceWsFakeOptions {
  /** The symbols and prices the stream starts from (copied, so the REST fake's data stays put). */
  symbols?: FakeSymbol[];
  /** Push every symbol on this period, as Binance does every second; 0 = only on `push()`. */
  intervalMs?: number;
}

export class BinanceWsFake {
  readonly symbols: FakeSymbol[];
  /** Connections accepted so far, including closed ones. */
  accepted = 0;
  /** Upgrade requests seen, by path and query. */
  readonly upgrades: string[] = [];
  url = '';
  private server?: Server;
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly combined = new WeakSet<WebSocket>();
  private refusals = 0;
  private timer?: NodeJS.Timeout;

  constructor(private readonly options: BinanceWsFakeOptions = {}) {
    this.symbols = (options.symbols ?? marketSymbols('global')).map((s) => ({ ...s }));
  }

  /** Clients currently connected. */
  get connections(): number {
    return this.wss.clients.size;
  }

  /** Changes a symbol's last price; the next push carries it. */
  setPrice(symbol: string, price: string): void {
    const found = this.symbols.find((s) => s.symbol === symbol);
    if (!found) throw new Error(`unknown symbol ${symbol}`);
    found.price = price;
  }

  /** Sends one frame with the given symbols (default: all) to every connected client. */
  push(only?: string[]): void {
    const now = Date.now();
    const events = this.symbols.filter((s) => !only || only.includes(s.symbol)).map((s) => miniTicker(s, now));
    for (const client of this.wss.clients) {
      if (client.readyState !== WebSocket.OPEN) continue;
      client.send(JSON.stringify(this.combined.has(client) ? { stream: STREAM, data: events } : events));
    }
  }

  /** Closes every connection abruptly, as a network drop would. */
  dropConnections(): void {
    for (const client of this.wss.clients) client.terminate();
  }

  /** The next `times` connection attempts are refused with HTTP 503 on the upgrade. */
  refuseConnections(times: number): void {
    this.refusals += times;
  }

  async start(): Promise<this> {
    this.server = createServer((_req, res) => {
      res.writeHead(404).end();
    });
    this.server.on('upgrade', (req, socket, head) => this.upgrade(req, socket, head));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    if (this.options.intervalMs) this.timer = setInterval(() => this.push(), this.options.intervalMs);
    return this;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.dropConnections();
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    this.upgrades.push(`${url.pathname}${url.search}`);
    const raw = url.pathname === `/ws/${STREAM}`;
    const combined = url.pathname === '/stream' && url.searchParams.get('streams') === STREAM;
    if (this.refusals > 0) {
      this.refusals -= 1;
      socket.end('HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    if (!raw && !combined) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (client) => {
      this.accepted += 1;
      if (combined) this.combined.add(client);
      this.wss.emit('connection', client, req);
    });
  }
}

export async function startBinanceWsFake(options: BinanceWsFakeOptions = {}): Promise<BinanceWsFake> {
  return new BinanceWsFake(options).start();
}
