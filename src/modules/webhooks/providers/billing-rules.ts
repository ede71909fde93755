// Pure rules for payment events: minor units to major units, and a subscription to our tier.
import { Decimal } from 'decimal.js';
import { obj, str, type Json } from './provider.ts';
import { TIERS, type Tier } from '../../users/index.ts';

/** Stripe's zero-decimal currencies: the amount is already in major units. */
const ZERO_DECIMAL = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'JPY',
  'KMF',
  'KRW',
  'MGA',
  'PYG',
  'RWF',
  'UGX',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
]);
/** Stripe's three-decimal currencies: the amount is in thousandths. */
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

/** An amount in the currency's minor units as an exact decimal string in major units. */
export function toMajorUnits(amountMinor: number | string, currency: string): string {
  const code = currency.toUpperCase();
  const amount = new Decimal(amountMinor);
  if (ZERO_DECIMAL.has(code)) return amount.toFixed(0);
  if (THREE_DECIMAL.has(code)) return amount.div(1000).toFixed(3);
  return amount.div(100).toFixed(2);
}

/** The highest of the tiers (in TIERS' order); undefined when none is one of ours. */
export function highestTier(tiers: readonly string[]): Tier | undefined {
  let best = -1;
  for (const tier of tiers) best = Math.max(best, TIERS.indexOf(tier as Tier));
  return best < 0 ? undefined : TIERS[best];
}

/** A tier named as a whole word in a label such as `pro_monthly`, `Enterprise (annual)`, `basic`. */
export function tierNamedIn(label: string | undefined): Tier | null {
  if (!label) return null;
  const words = label.toLowerCase().split(/[^a-z0-9]+/);
  // The most specific tier wins when a label names several (e.g. "pro to enterprise upgrade").
  for (const tier of [...TIERS].reverse()) if (words.includes(tier)) return tier;
  return null;
}

/**
 * The tier a subscription grants, looked up in this order: the subscription's `metadata.tier`, then
 * for its first item the price's `metadata.tier`, `lookup_key`, `nickname`, the product's
 * `metadata.tier` and `name` (when expanded), then the legacy `plan.nickname`. Null when none names
 * a tier.
 */
export function tierFromSubscription(subscription: Json): Tier | null {
  const item = obj((Array.isArray(obj(subscription.items).data) ? (obj(subscription.items).data as unknown[]) : [])[0]);
  const price = obj(item.price ?? subscription.plan);
  const product = obj(price.product);
  const candidates = [
    str(obj(subscription.metadata).tier),
    str(obj(price.metadata).tier),
    str(price.lookup_key),
    str(price.nickname),
    str(obj(product.metadata).tier),
    str(product.name),
    str(obj(subscription.plan).nickname),
  ];
  for (const candidate of candidates) {
    const tier = tierNamedIn(candidate);
    if (tier) return tier;
  }
  return null;
}

/** Statuses after which the customer no longer has a paid subscription. */
const ENDED = new Set(['canceled', 'unpaid', 'incomplete_expired', 'paused']);
/** Statuses in which the subscription grants its tier. */
const GRANTING = new Set(['active', 'trialing', 'past_due']);

interface SubscriptionOutcome {
  /** The tier to set, or null to leave the user's tier as it is. */
  tier: Tier | null;
  /** The subscription is in good standing: any grace period is over. */
  clearsGracePeriod: boolean;
  status: string;
}

export function subscriptionOutcome(eventType: string, subscription: Json): SubscriptionOutcome {
  const status = str(subscription.status) ?? 'unknown';
  if (eventType === 'customer.subscription.deleted' || ENDED.has(status)) {
    return { tier: 'free', clearsGracePeriod: false, status: eventType.endsWith('.deleted') ? 'canceled' : status };
  }
  if (!GRANTING.has(status)) return { tier: null, clearsGracePeriod: false, status };
  return {
    tier: tierFromSubscription(subscription),
    clearsGracePeriod: status === 'active' || status === 'trialing',
    status,
  };
}

/** What a customer's events may do to its user (decision 1021). */
export interface Standing {
  /** Linked by a metadata proof: its changes apply as they come (decision 975). */
  proven: boolean;
  /** The user's tier is this customer's doing: it may lower it, and open or end a grace period. */
  carries: boolean;
  /** Linked by a typed e-mail: the tier the user had before its raise; its changes lower no further. */
  raisedFrom?: Tier;
}

/**
 * The tier a customer's subscription change sets (undefined: none), from the user's tier and the one
 * the change wants (already no lower than what the user's other customers pay for). A customer
 * linked by a typed e-mail may raise the user (it costs them nothing) but lowers only a tier it
 * carries, and no lower than the one it raised them from; `kept` says why a lowering was not made.
 */
export function tierAfter(
  current: Tier,
  wanted: Tier,
  standing: Standing,
): { tier?: Tier; raised?: boolean; kept?: string } {
  const rank = (tier: Tier) => TIERS.indexOf(tier);
  if (wanted === current) return {};
  if (standing.proven) return { tier: wanted };
  if (rank(wanted) > rank(current)) return { tier: wanted, raised: true };
  if (!standing.carries) return { kept: `matched by typed e-mail only; it did not raise ${current}` };
  const floor = standing.raisedFrom && rank(standing.raisedFrom) > rank(wanted) ? standing.raisedFrom : wanted;
  if (floor === current) return {};
  return floor === wanted
    ? { tier: floor }
    : { tier: floor, kept: `the tier before this customer raised it: ${floor}` };
}

/**
 * Whether a failed invoice of this customer opens a grace period: when its end (the user back to
 * `free`) takes away only what the customer pays for, so not for one matched by a typed e-mail that
 * raised the user from a paid tier, nor for one whose subscription the user's tier is not.
 */
export function opensGracePeriod(standing: Standing): boolean {
  return standing.carries && (standing.proven || (standing.raisedFrom ?? 'free') === 'free');
}
