// What every inbound provider supplies to the receiving pipeline: how to verify a delivery, how to
// name it, and what it causes. Verification and naming are pure; effects run inside the
// transaction that stores the delivery, so both commit or neither does.
import type { WebhookProvider } from '../../../config/config.ts';
import type { AuditEvent } from '../../../platform/audit.ts';
import type { DbExecutor } from '../../../platform/db/database.ts';
import type { ChatMessage, MailMessage } from '../../../platform/outbox/messages.ts';
import type { Verdict } from '../signatures.ts';

export type Headers = Readonly<Record<string, string | string[] | undefined>>;

export interface InboundDelivery {
  headers: Headers;
  /** The body bytes exactly as received: what the sender signed. */
  rawBody: Buffer;
  body: Record<string, unknown>;
}

export interface DeliveryIdentity {
  deliveryId: string;
  event: string;
}

/** What the route answers; most providers only acknowledge, the auth hook answers with data. */
export interface HookAnswer {
  status: number;
  body: Record<string, unknown>;
}

export interface EffectContext {
  tx: DbExecutor;
  now: Date;
  provider: WebhookProvider;
  deliveryId: string;
  event: string;
  body: Record<string, unknown>;
  headers: Headers;
  /** Queues a chat notification, once per delivery; `part` tells several messages of one delivery apart. */
  chat(message: Omit<ChatMessage, 'source'>, part?: string): Promise<void>;
  /** Queues a mail unless the address is suppressed; `part` tells several mails of one delivery apart. */
  mail(message: MailMessage, part?: string): Promise<{ queued: boolean }>;
  audit(event: Omit<AuditEvent, 'actorType'>): Promise<void>;
  /**
   * Ends the delivery in another status than `processed`: `unmatched` when its effect waits for a
   * later delivery to apply it (payments: a subscription change of a customer not yet linked to a
   * user), `superseded` when a newer delivery's effect already stands.
   */
  keepAs(status: 'unmatched' | 'superseded'): void;
}

export interface ProviderHandler {
  provider: WebhookProvider;
  /** Human name used in answers and messages, e.g. `Code host`. */
  name: string;
  verify(delivery: InboundDelivery, secret: string, now: Date): Verdict;
  identify(delivery: InboundDelivery): DeliveryIdentity;
  /** The effects of a first (or previously failed) delivery. */
  apply(context: EffectContext): Promise<HookAnswer | void>;
  /** The answer to a delivery seen before; it must cause nothing. Default: `duplicate`. */
  replay?(context: EffectContext): Promise<HookAnswer | void>;
}

/** The first present header among the names given (the spec's name first, then the provider's). */
export function header(headers: Headers, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = headers[name];
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string' && first.trim() !== '') return first.trim();
  }
  return undefined;
}

export type Json = Record<string, unknown>;

/** A nested object of an untrusted payload, or an empty one. */
export function obj(value: unknown): Json {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
}

export function str(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim() !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

export function num(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

/** First line of a text, cut to a length suitable for a chat line. */
export function excerpt(text: string | undefined, max = 140): string {
  if (!text) return '';
  const line = text.split('\n')[0]!.trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
