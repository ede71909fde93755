// The Binance fake of scenario 4 (bench/orders.ts) in a process of its own, with BENCH_ORDERS_FAKE=process
// (decision 500): the same fake, with its order endpoints, that the tests use, driven over IPC by the load
// client's process. Beside the load client, a venue call can wait for the load client's work before the
// fake's handler runs and stamps it, and the live overhead counts that wait as the app's; here it cannot.
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { startBinanceFake, type FakeAccount, type FakeRequest } from '../test/fakes/binance.ts';
import { withOrders } from '../test/fakes/binance-orders.ts';

/** A venue call as the load client's process reads it: `receivedAt` on the wall clock, in ms (timeOrigin + now). */
export interface VenueCall {
  method: string;
  path: string;
  apiKey: string;
  /** The order the call names: its new client order id, or the one it looks up or cancels. */
  clientOrderId?: string;
  receivedAt: number;
  serviceMs?: number;
}

/** What the load client asks of the fake's process. */
export type FakeAsk = { kind: 'account'; account: FakeAccount } | { kind: 'calls'; from: number } | { kind: 'count' };
export type FakeCommand = FakeAsk & { seq: number };

export function callOf(r: FakeRequest, timeOrigin: number): VenueCall {
  return {
    method: r.method,
    path: r.path,
    apiKey: String(r.headers['x-mbx-apikey'] ?? ''),
    clientOrderId:
      r.params.get('newClientOrderId') ??
      r.params.get('origClientOrderId') ??
      new URLSearchParams(r.body).get('newClientOrderId') ??
      undefined,
    receivedAt: timeOrigin + r.receivedAt,
    serviceMs: r.serviceMs,
  };
}

async function main() {
  const send = (message: unknown) => process.send!(message);
  // A weight limit no run reaches: the app reads it from exchangeInfo and sizes its budget by it.
  const binance = await startBinanceFake({ weightLimit: Number(process.env.FAKE_WEIGHT_LIMIT ?? 100_000_000) });
  withOrders(binance);
  process.on('message', (command: FakeCommand) => {
    if (command.kind === 'account') {
      binance.addAccount(command.account);
      send({ seq: command.seq });
    } else if (command.kind === 'count') {
      send({ seq: command.seq, count: binance.requests.length });
    } else {
      const calls = binance.requests.slice(command.from).map((r) => callOf(r, performance.timeOrigin));
      send({ seq: command.seq, calls });
    }
  });
  process.on('disconnect', () => void binance.close().then(() => process.exit(0)));
  send({ url: binance.url });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
