// A Server-Sent Events client for tests: the `eventsource` package (the WHATWG EventSource in Node),
// with a fetch that can add headers (Authorization, Last-Event-ID), collecting every named event.
import { EventSource } from 'eventsource';
import { STREAM_EVENT_TYPES } from '../../src/declarations.ts';

export interface ReceivedEvent {
  type: string;
  id: string;
  data: Record<string, unknown>;
}

/** The price stream's events and every declared account event. */
const EVENT_NAMES = ['snapshot', 'price', 'end', ...STREAM_EVENT_TYPES];

export interface SseFollower {
  readonly events: ReceivedEvent[];
  /** Resolves when the stream is open (its headers arrived). */
  readonly opened: Promise<void>;
  /** The first event (from the start) matching, waiting at most `timeoutMs`. */
  waitFor(match: (event: ReceivedEvent) => boolean, timeoutMs?: number, what?: string): Promise<ReceivedEvent>;
  close(): void;
}

export function follow(
  url: string,
  options: { headers?: Record<string, string>; reconnect?: boolean } = {},
): SseFollower {
  const events: ReceivedEvent[] = [];
  const waiters = new Set<() => void>();
  const source = new EventSource(url, {
    fetch: (input, init) =>
      fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...options.headers } }),
  });
  let failed: string | undefined;
  const opened = new Promise<void>((resolve, reject) => {
    source.addEventListener('open', () => resolve());
    source.addEventListener('error', (event) => {
      const error = event as unknown as { code?: number; message?: string };
      failed = `stream error ${error.code ?? ''} ${error.message ?? ''}`;
      if (source.readyState === EventSource.CLOSED) reject(new Error(failed));
      for (const wake of waiters) wake();
    });
  });
  opened.catch(() => {});
  for (const name of EVENT_NAMES) {
    source.addEventListener(name, (message) => {
      events.push({ type: name, id: message.lastEventId, data: JSON.parse(message.data) as Record<string, unknown> });
      if (name === 'end' && !options.reconnect) source.close();
      for (const wake of waiters) wake();
    });
  }
  return {
    events,
    opened,
    async waitFor(match, timeoutMs = 5_000, what = 'an event') {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = events.find(match);
        if (found) return found;
        const left = deadline - Date.now();
        if (left <= 0)
          throw new Error(
            `timed out waiting for ${what}; ` +
              `got ${JSON.stringify(events.map((e) => e.type))}${failed ? ` (${failed})` : ''}`,
          );
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake);
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(wake, left);
          waiters.add(wake);
        });
      }
    },
    close: () => source.close(),
  };
}

/** The base URL of an app listening on an ephemeral loopback port. */
export function baseUrl(address: string): string {
  return address.replace('[::1]', '127.0.0.1');
}
