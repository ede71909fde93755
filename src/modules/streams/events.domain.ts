// The stored account event (the envelope), who sees it, and what a stream may be asked for. Pure.
// The event types and their data are declared by the modules that publish them (src/declarations.ts gathers them).

import type { Audience } from '../../platform/stream-events.ts';

/** How long events are kept for `Last-Event-ID` replay. */
export const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** An event as stored and as it travels between instances. */
export interface StoredEvent {
  /** The table's sequence, as a decimal string: the SSE `id`. */
  id: string;
  /** A declared event type (src/declarations.ts); the database checks it. */
  type: string;
  audience: Audience;
  /** The user it concerns; null for admin events. */
  userId: string | null;
  /** As published: the publisher's port is typed by the event's schema. */
  data: unknown;
  /** ISO 8601 with milliseconds. */
  ts: string;
}

/** Whether a stream of this user (an admin or not) gets this event. */
export function reaches(
  event: Pick<StoredEvent, 'audience' | 'userId'>,
  subscriber: { userId: string; admin: boolean },
): boolean {
  return event.audience === 'admins' ? subscriber.admin : event.userId === subscriber.userId;
}

/**
 * The event id a reconnecting client names (`Last-Event-ID`): a sequence number, or undefined when
 * absent. Anything else is refused, so that a typo does not silently replay everything or nothing.
 */
export function parseLastEventId(raw: string | undefined): bigint | undefined | 'invalid' {
  if (raw === undefined || raw.trim() === '') return undefined;
  const text = raw.trim();
  if (!/^\d{1,19}$/.test(text)) return 'invalid';
  const value = BigInt(text);
  return value <= 9_223_372_036_854_775_807n ? value : 'invalid';
}
