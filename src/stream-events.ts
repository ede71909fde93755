// The one list of account-stream events: each publishing module declares its own events beside itself
// (`<module>.events.ts`); they are assembled here, above the modules. From this list come the
// streams module's typed publisher, the stream's OpenAPI schema and the database's CHECK on the stored
// events' type. Adding an event is its declaration in its module and, for a new publisher, one line here.
import { EXCHANGE_EVENTS } from './modules/exchange/exchange.events.ts';
import { JOBS_EVENTS } from './modules/jobs/jobs.events.ts';
import { SIGNALS_EVENTS } from './modules/signals/signals.events.ts';
import { TRADING_EVENTS } from './modules/trading/trading.events.ts';
import { ORDERS_EVENTS } from './modules/orders/orders.events.ts';
import { WEBHOOKS_EVENTS } from './modules/webhooks/webhooks.events.ts';
import type { StreamEventList } from './platform/stream-events.ts';

/** Every event, in the order the OpenAPI document lists them. */
export const STREAM_EVENTS = [
  ...EXCHANGE_EVENTS,
  ...JOBS_EVENTS,
  ...SIGNALS_EVENTS,
  ...TRADING_EVENTS,
  ...WEBHOOKS_EVENTS,
  ...ORDERS_EVENTS,
] as const;
export type StreamEvents = typeof STREAM_EVENTS;
type StreamEventName = StreamEvents[number]['type'];

/** Refuses a list in which two declarations share a type or a schema title. */
export function checkStreamEvents(events: StreamEventList): void {
  for (const key of ['type', 'title'] as const) {
    const seen = new Set<string>();
    for (const event of events) {
      if (seen.has(event[key])) throw new Error(`stream event ${key} declared twice: ${event[key]}`);
      seen.add(event[key]);
    }
  }
}
checkStreamEvents(STREAM_EVENTS);

export const STREAM_EVENT_TYPES: readonly StreamEventName[] = STREAM_EVENTS.map((event) => event.type);
