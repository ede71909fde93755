// The account events, declared once: who sees each, and what a stream may be asked for. Pure.

/** Events about one user's account: only that user's streams get them. */
export const USER_EVENT_TYPES = [
  'balance.synced',
  'trades.synced',
  'transfers.synced',
  'portfolio.updated',
  'credential.validated',
  'credential.changed',
] as const;
/** Events about the platform: every admin's stream gets them. */
export const ADMIN_EVENT_TYPES = ['job.finished', 'webhook.received'] as const;
export const EVENT_TYPES = [...USER_EVENT_TYPES, ...ADMIN_EVENT_TYPES] as const;

export type UserEventType = (typeof USER_EVENT_TYPES)[number];
export type AdminEventType = (typeof ADMIN_EVENT_TYPES)[number];
export type EventType = (typeof EVENT_TYPES)[number];

export const AUDIENCES = ['user', 'admins'] as const;
export type Audience = (typeof AUDIENCES)[number];

/** How long events are kept for `Last-Event-ID` replay. */
export const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** An event as stored and as it travels between instances. */
export interface StoredEvent {
  /** The table's sequence, as a decimal string: the SSE `id`. */
  id: string;
  type: EventType;
  audience: Audience;
  /** The user it concerns; null for admin events. */
  userId: string | null;
  data: Record<string, unknown>;
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
