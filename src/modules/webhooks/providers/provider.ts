// What a provider's effects see and answer, and the helpers its declaration uses to read an
// untrusted payload. Effects go through the context's ports, bound to the transaction that stores
// the delivery, so both commit or neither does (the declaration itself: declaration.ts).
import { Type } from 'typebox';
import type { AuditEvent } from '../../../platform/audit.ts';
import type { WebhooksAuditAction } from '../webhooks.audit.ts';
import type { ChatMessage, MailMessage } from '../../notifications/index.ts';
import type { BillingAuditAction, Role, Tier, UserStatus } from '../../users/index.ts';
import type { DeliveryStatus } from '../deliveries.domain.ts';
import type { StoredDelivery } from '../webhooks.repository.ts';

export type Headers = Readonly<Record<string, string | string[] | undefined>>;

export interface InboundDelivery {
  headers: Headers;
  /** The body bytes exactly as received: what the sender signed. */
  rawBody: Buffer;
  body: Record<string, unknown>;
}

export interface DeliveryIdentity {
  /** The sender's id for this delivery, when it sent one. */
  senderId?: string;
  event: string;
  /**
   * How long the same body counts as this delivery again, whatever id it comes with (decision 099):
   * set when the sender's id alone cannot name the delivery, because it sent none or its signature
   * does not cover the id, so a signed body could be replayed under a new one. Infinite: for as long
   * as the deliveries are kept (decision 842).
   */
  sameBodyWindowMs?: number;
}

const MINUTE_MS = 60 * 1000;

/**
 * Same-body windows (decision 099). RETRY: a body that can genuinely recur (a row changed back and
 * forth) or one only a bearer secret vouches for; ten minutes covers a resend of the same request.
 * REPLAY: a body signed without a signed id or time, carrying the sender's own event ids and times, so
 * a copy is a replay: matched for as long as the deliveries are kept, as the sender's ids are
 * (decision 842; thirty days before it), so no new id makes a captured body pass again.
 */
export const RETRY_WINDOW_MS = 10 * MINUTE_MS;
export const REPLAY_WINDOW_MS = Number.POSITIVE_INFINITY;

/** What the route answers; most providers only acknowledge, the auth hook answers with data. */
export interface HookAnswer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * What applying a delivery came to. `processed`, or kept in another status: `unmatched` when its
 * effect waits for a later delivery to apply it (payments: a subscription change of a customer not
 * yet linked to a user), `superseded` when a newer delivery's effect already stands. `answer` is
 * what the route sends instead of the acknowledgement. `refused`: the content is refused with a 4xx
 * answer, so nothing of the delivery is kept (decision 099).
 */
export type Outcome =
  | { status: Exclude<DeliveryStatus, 'failed'>; answer?: HookAnswer }
  | { status: 'refused'; answer: HookAnswer };

export const processed = (answer?: HookAnswer): Outcome => ({ status: 'processed', answer });
export const keptAs = (status: 'unmatched' | 'superseded'): Outcome => ({ status });
export const refused = (answer: HookAnswer): Outcome => ({ status: 'refused', answer });

/** The provider's own earlier deliveries: found by a value in their payload, and settled once held. */
export interface HeldDeliveries {
  find(
    where: { status: DeliveryStatus; events: readonly string[]; path: readonly string[]; value: string },
    options?: { limit?: number; lock?: boolean },
  ): Promise<StoredDelivery[]>;
  /** Ends held (`unmatched`) deliveries in the given status. */
  settle(deliveryIds: string[], status: 'processed' | 'superseded'): Promise<void>;
}

/** A payments customer as remembered (decision 975, 1021). */
export interface PaymentCustomer {
  userId: string | null;
  email: string | null;
  /** The tier its newest applied subscription change grants; null before one, or before decision 975. */
  tier: string | null;
  /** Linked by a metadata proof (true), by a typed e-mail (false), or before decision 1021 (null). */
  proven: boolean | null;
  /** Linked by e-mail: the user's tier before its raise that still stands. */
  raisedFrom: string | null;
}

/** The payments provider's records: which user a customer is, and the ledger. */
export interface PaymentRecords {
  findCustomer(customerId: string): Promise<PaymentCustomer | undefined>;
  /** A later mapping for the same customer wins, field by field; a proof marks the link proven. */
  rememberCustomer(customer: {
    customerId: string;
    userId: string | null;
    email: string | null;
    proven: boolean;
  }): Promise<void>;
  /** The tier the customer's newest applied subscription change grants. */
  rememberTier(customerId: string, tier: Tier): Promise<void>;
  /** A customer linked by a typed e-mail raised its user from this tier (decision 1021). */
  rememberRaise(customerId: string, from: Tier): Promise<void>;
  /** The user's other customers, with the tier each one's subscription grants when remembered. */
  otherCustomers(userId: string, customerId: string): Promise<{ customerId: string; tier: string | null }[]>;
  /** Records a payment once per external id; answers whether this call recorded it. */
  recordPayment(payment: {
    externalId: string;
    userId: string | null;
    customerEmail: string | null;
    amount: string;
    currency: string;
    occurredAt: Date;
  }): Promise<boolean>;
}

/** The identity module's billing use cases, in the delivery's transaction. */
export interface BillingPort {
  /** How long a grace period opened for a failed payment lasts (GRACE_PERIOD_DAYS). */
  gracePeriodDays: number;
  /** Answers the tier the account had, or undefined when it had this one already. */
  changeTier(userId: string, tier: Tier): Promise<Tier | undefined>;
  /** Opens a grace period unless one runs; answers the one in force. */
  openGracePeriod(userId: string, endsAt: Date): Promise<{ endsAt: Date; opened: boolean } | undefined>;
  /** Answers whether a grace period was running. */
  clearGracePeriod(userId: string): Promise<boolean>;
}

/** What every provider's effects are told of the delivery they apply. */
export interface DeliveryFacts {
  now: Date;
  provider: string;
  deliveryId: string;
  event: string;
  body: Record<string, unknown>;
  headers: Headers;
}

/**
 * Everything an effect may do, each port bound to the delivery's transaction. A provider declares
 * the ports it uses (`ports` of its declaration) and its effects are given those alone.
 */
export interface ProviderPorts {
  /** Queues a chat notification, once per delivery; `part` tells several messages of one delivery apart. */
  chat(message: Omit<ChatMessage, 'source'>, part?: string): Promise<void>;
  /** Queues a mail unless the address is suppressed; `part` tells several mails of one delivery apart. */
  mail(message: MailMessage, part?: string): Promise<{ queued: boolean }>;
  audit(event: Omit<AuditEvent<WebhooksAuditAction | BillingAuditAction>, 'actorType'>): Promise<void>;
  /** The account with this address or id (the identity module's), read in the delivery's transaction. */
  findUser(by: { email?: string; id?: string }): Promise<MatchedUser | undefined>;
  /**
   * The account a user of the auth provider signs in as with its tokens (decision 009): the one linked
   * to (issuer, subject), else the one with an address the provider verified and no other user of it
   * linked. Read only, in the delivery's transaction.
   */
  findIdentity(identity: ProviderIdentity): Promise<MatchedUser | undefined>;
  billing: BillingPort;
  /** Whether mail to this address is suppressed (it bounced, or its owner complained). */
  isSuppressed(email: string): Promise<boolean>;
  /** Suppresses mail to this address; answers whether it was new on the list. */
  suppress(email: string, reason: string): Promise<boolean>;
  deliveries: HeldDeliveries;
  payments: PaymentRecords;
}

export type PortName = keyof ProviderPorts;

/** What a provider's effects see and may do: the delivery, and the ports `P` it declared. */
export type EffectContext<P extends PortName = PortName> = DeliveryFacts & Pick<ProviderPorts, P>;

/** A user of an identity provider, as its token's claims name it. */
export interface ProviderIdentity {
  issuer: string;
  subject: string;
  email: string | undefined;
  /** Whether the provider says it verified the address. */
  emailVerified: boolean;
}

/** What an effect may know of an account. */
export interface MatchedUser {
  id: string;
  email: string;
  role: Role;
  subscriptionTier: Tier;
  status: UserStatus;
  gracePeriodEndsAt: Date | null;
}

/** A header a route's schema names and may go without. */
export const optionalHeader = (description: string) => Type.Optional(Type.String({ description }));

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
