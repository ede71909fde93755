// An order's states on its user's account stream, in the order of its changes (decisions 321, 345): each
// order's events stored one after another, and a live order's states before its send held back a moment
// to go out with the state its answer brings.
import type { EventPublisher } from '../streams/index.ts';
import type { ORDERS_EVENTS } from './orders.events.ts';
import type { OrderRow } from './orders.rows.ts';
import { orderWire } from './orders.wire.ts';

/** How long a live order's states before its send wait for the venue's answer to go out with it. */
const CLAIMED_EVENTS_HELD_MS = 250;

export function createOrderPublisher(events: Pick<EventPublisher<typeof ORDERS_EVENTS>, 'userEach'>) {
  /**
   * Each order's events are stored one after another, in the order of its changes: two inserts at once
   * on two pooled connections could take their ids the other way round. The states committed together
   * (decisions 270, 272) are given at once and stored in one statement, in their order (decision 321).
   */
  const publishing = new Map<string, Promise<void>>();
  /**
   * A live order's states committed before its send, held back for a moment (decision 345): when the
   * venue answers within it, they go out with the state its answer brings, in one insert and one bus
   * call, where two of each took twice the statements. Any later publication of the order takes them
   * first, so the events keep the order of the changes; past the moment, they go out alone.
   */
  const held = new Map<string, { rows: OrderRow[]; timer: NodeJS.Timeout }>();
  function hold(rows: [OrderRow, ...OrderRow[]]): void {
    const id = rows[0].id;
    const timer = setTimeout(() => {
      if (held.get(id)?.timer !== timer) return;
      held.delete(id);
      publish(...rows);
    }, CLAIMED_EVENTS_HELD_MS).unref();
    held.set(id, { rows, timer });
  }
  function publish(...given: [OrderRow, ...OrderRow[]]): void {
    const waiting = held.get(given[0].id);
    if (waiting) {
      clearTimeout(waiting.timer);
      held.delete(given[0].id);
    }
    const rows = waiting ? [...waiting.rows, ...given] : given;
    const first = given[0];
    const wires = rows.map(orderWire);
    const previous = publishing.get(first.id) ?? Promise.resolve();
    const next = previous.then(() => events.userEach(first.userId, 'order.updated', wires));
    publishing.set(first.id, next);
    void next.then(() => {
      if (publishing.get(first.id) === next) publishing.delete(first.id);
    });
  }

  return { publish, hold };
}

export type OrderPublisher = ReturnType<typeof createOrderPublisher>;
