// An order's send is signed within SIGN_WITHIN_MS of its claim, or not at all (decision 1310). A lookup that
// finds no order takes it as never received once the venue's receive window has passed since the claim;
// the window runs from the request's own timestamp, set when ccxt signs it. Between claim and signature
// lie the credential read, the markets, Bybit's UID, Coinbase's ticker for a market buy and the wait for
// the key's turn: a send signed later than the lookup allowed for could be taken by the venue after the
// lookup had rejected the order, and the order would be lost. The deadline goes with the send through
// AsyncLocalStorage to ccxt's `sign`, which every request of the instance passes through.
import { AsyncLocalStorage } from 'node:async_hooks';

interface Deadline {
  /** Epoch ms past which no request of the send is signed. */
  by: number;
  now(): number;
}

const deadlines = new AsyncLocalStorage<Deadline>();

/** Thrown instead of signing a request of a send past its deadline: nothing of it left the process. */
export class SigningDeadlinePassed extends Error {
  constructor(seconds: number) {
    super(`not sent: it could not be signed within ${seconds} s of being stored, so nothing reached the venue`);
    this.name = 'SigningDeadlinePassed';
  }
}

/** Runs `send` with its requests signed by `by` (epoch ms, on `now`'s clock) or refused. */
export function signedBy<T>(by: number, now: () => number, send: () => Promise<T>): Promise<T> {
  return deadlines.run({ by, now }, send);
}

/** What is left of the signing deadline of the send this runs for, in ms; undefined outside a send. */
export function signingTimeLeftMs(): number | undefined {
  const deadline = deadlines.getStore();
  return deadline && deadline.by - deadline.now();
}

/** Makes the instance's `sign` honour the deadline of the send it runs for, if any. */
export function holdSigningDeadlines(exchange: unknown, withinMs: number): void {
  const client = exchange as { sign(...args: unknown[]): unknown };
  const own = client.sign.bind(exchange);
  client.sign = (...args) => {
    const deadline = deadlines.getStore();
    if (deadline && deadline.now() > deadline.by) throw new SigningDeadlinePassed(withinMs / 1000);
    return own(...args);
  };
}
