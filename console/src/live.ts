// The two live streams: prices for everyone (GET /api/v1/market/stream), and the signed-in account's
// events (GET /api/stream with a single-use ticket, since EventSource cannot send a header).
import { api, session, signOut } from './session.ts';

interface PriceTick {
  symbol: string;
  price: number;
  ts: string;
}

/** Follows the prices of `symbols` (all pairs when empty); answers the function that stops it. */
export function followPrices(symbols: string[], onTick: (ticks: PriceTick[]) => void): () => void {
  let source: EventSource | null = null;
  let stopped = false;
  const open = () => {
    if (stopped) return;
    source = new EventSource(
      `/api/v1/market/stream${symbols.length ? `?symbols=${encodeURIComponent(symbols.join(','))}` : ''}`,
    );
    source.addEventListener('snapshot', (event) =>
      onTick((JSON.parse((event as MessageEvent).data) as { prices: PriceTick[] }).prices),
    );
    source.addEventListener('price', (event) => onTick([JSON.parse((event as MessageEvent).data) as PriceTick]));
    // The server ends a stream at shutdown or for a slow reader: open a new one (a fresh snapshot).
    source.addEventListener('end', () => {
      source?.close();
      setTimeout(open, 2000);
    });
  };
  open();
  return () => {
    stopped = true;
    source?.close();
  };
}

export interface AccountEvent {
  id: string;
  type: string;
  ts: string;
  data: Record<string, unknown>;
}

type Listener = (event: AccountEvent) => void;
const listeners = new Set<Listener>();
let stream: EventSource | null = null;
let lastEventId: string | null = null;
let retry: ReturnType<typeof setTimeout> | undefined;

export function onAccountEvent(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const EVENT_TYPES = [
  'balance.synced',
  'trades.synced',
  'transfers.synced',
  'portfolio.updated',
  'credential.validated',
  'credential.changed',
  'job.finished',
  'webhook.received',
];

/**
 * Opens the account stream while signed in. The server re-checks the account every second and ends
 * the stream of a suspended one; the next ticket is then refused and the console signs out.
 */
async function connect(): Promise<void> {
  if (!session.user || stream) return;
  let ticket: string;
  try {
    ticket = (await api<{ ticket: string }>('/api/stream/ticket', { method: 'POST' })).ticket;
  } catch {
    // Refused: api() has signed out for a suspended account or an ended session; otherwise retry.
    if (session.user) retry = setTimeout(() => void connect(), 5000);
    return;
  }
  if (!session.user) return;
  const query = new URLSearchParams({ ticket });
  if (lastEventId) query.set('last_event_id', lastEventId);
  const source = new EventSource(`/api/stream?${query}`);
  stream = source;
  const deliver = (message: MessageEvent) => {
    if (message.lastEventId) lastEventId = message.lastEventId;
    try {
      const event = JSON.parse(message.data) as AccountEvent;
      for (const listener of listeners) listener(event);
    } catch {
      // Not an event of ours (a comment or a ping).
    }
  };
  for (const type of EVENT_TYPES) source.addEventListener(type, deliver);
  source.onmessage = deliver;
  const reopen = () => {
    source.close();
    if (stream === source) stream = null;
    clearTimeout(retry);
    // A ticket works once: EventSource's own reconnect would be refused, so a new ticket is asked for.
    retry = setTimeout(() => void connect(), 1000);
  };
  source.addEventListener('end', reopen);
  source.onerror = reopen;
}

function disconnect(): void {
  clearTimeout(retry);
  stream?.close();
  stream = null;
  lastEventId = null;
}

let watching = false;
/** Keeps the account stream open exactly while someone is signed in. */
export function watchAccount(): void {
  if (watching) return;
  watching = true;
  let user = session.user?.id ?? null;
  session.subscribe(() => {
    const now = session.user?.id ?? null;
    if (now === user) return;
    user = now;
    disconnect();
    if (now) void connect();
  });
  if (user) void connect();
  // A backstop for a stream a proxy holds open: the account is re-read every minute.
  setInterval(() => {
    if (session.user) void api('/api/auth/me').catch(() => undefined);
  }, 60_000);
}

export { signOut };
