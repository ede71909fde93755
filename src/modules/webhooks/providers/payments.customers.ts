// Which user a payments customer is, and what its events may do to that user (decisions 975, 1020,
// 1021): a customer proven by metadata acts for its user; one matched by the e-mail its payer typed,
// which the provider does not verify, only undoes what it raised. Used by payments.effects.ts.
import type { Tier } from '../../users/index.ts';
import { highestTier, type Standing, subscriptionOutcome } from './billing-rules.ts';
import { obj, str, type EffectContext as AnyEffectContext, type Json, type MatchedUser } from './provider.ts';

/** What the effects use: payments.provider.ts declares these ports (the compiler holds the two together). */
export type EffectContext = AnyEffectContext<'chat' | 'audit' | 'findUser' | 'billing' | 'deliveries' | 'payments'>;

/** Stripe's subscription events; they carry a customer id but no e-mail. */
export const SUBSCRIPTION_EVENTS = ['customer.subscription.updated', 'customer.subscription.deleted'] as const;

export interface Match {
  user?: MatchedUser;
  email?: string;
  /** The user was named by a metadata proof, in this event or remembered for the customer. */
  proven: boolean;
}

/**
 * The user id in `metadata.user_id` of the object, or of the subscription an invoice is for: only
 * whoever holds the provider's secret key writes metadata, so it proves the customer is that user.
 * `client_reference_id` does not (a payment link takes it from the address the payer opens).
 */
function provenUserId(object: Json): string | undefined {
  const subscriptionDetails = obj(object.subscription_details);
  const basilDetails = obj(obj(object.parent).subscription_details);
  for (const metadata of [object.metadata, subscriptionDetails.metadata, basilDetails.metadata]) {
    const id = str(obj(metadata).user_id)?.trim();
    if (id) return id;
  }
  return undefined;
}

/**
 * Finds our user (decision 975): the user id in the object's metadata, else the user remembered for
 * the customer, else the typed e-mail (the event's, or the one remembered for the customer), which
 * the provider does not verify. A remembered user is replaced only by a metadata proof, never by an
 * e-mail. Remembers the pair, and a proof as such.
 */
export async function matchUser(
  context: EffectContext,
  customerId: string | undefined,
  email: string | undefined,
  object: Json,
): Promise<Match> {
  const address = email?.trim().toLowerCase() || undefined;
  const provenId = provenUserId(object);
  let user = provenId ? await context.findUser({ id: provenId }) : undefined;
  let proven = user !== undefined;
  const customer = customerId ? await context.payments.findCustomer(customerId) : undefined;
  if (!user && customer?.userId) {
    user = await context.findUser({ id: customer.userId });
    proven = user !== undefined && customer.proven === true;
  }
  const typed = address ?? customer?.email ?? undefined;
  if (!user && typed) user = await context.findUser({ email: typed });
  if (customerId && (typed || user)) {
    await context.payments.rememberCustomer({ customerId, userId: user?.id ?? null, email: address ?? null, proven });
  }
  return { user, email: typed ?? user?.email, proven };
}

/**
 * The tier a customer's subscription grants: the remembered one, else (a customer whose last change
 * was applied before decision 975 remembered none) the one its newest applied subscription change
 * that names a tier grants, which is then remembered (decision 1020).
 */
async function grantedBy(context: EffectContext, customerId: string, remembered: string | null) {
  if (remembered !== null) return highestTier([remembered]);
  const applied = await context.deliveries.find(
    { status: 'processed', events: SUBSCRIPTION_EVENTS, path: ['data', 'object', 'customer'], value: customerId },
    { limit: 50 },
  );
  for (const delivery of applied) {
    const tier = subscriptionOutcome(delivery.event, obj(obj(delivery.payload.data).object)).tier;
    if (!tier) continue;
    await context.payments.rememberTier(customerId, tier);
    return tier;
  }
  return undefined;
}

/** The highest tier another of the user's customers pays for: no event of this one lowers them below it. */
export async function paidElsewhere(
  context: EffectContext,
  user: MatchedUser,
  customerId: string | undefined,
): Promise<Tier | undefined> {
  if (!customerId) return undefined;
  const tiers: Tier[] = [];
  for (const other of await context.payments.otherCustomers(user.id, customerId)) {
    const tier = await grantedBy(context, other.customerId, other.tier);
    if (tier) tiers.push(tier);
  }
  return highestTier(tiers);
}

/**
 * What this customer's events may do to the user (decision 1021). Proven: what decision 975 says.
 * Matched by a typed e-mail: it carries the user's tier when that tier is the one its subscription
 * grants and a raise of its made it so (for a link made before decision 1021, whose raises are not
 * known: when the tier is the one it grants, as decision 062 assumed).
 */
export async function standingOf(
  context: EffectContext,
  user: MatchedUser,
  customerId: string | undefined,
  proven: boolean,
): Promise<Standing> {
  if (proven) return { proven: true, carries: true };
  const customer = customerId ? await context.payments.findCustomer(customerId) : undefined;
  if (!customerId || !customer) return { proven: false, carries: false };
  const granted = await grantedBy(context, customerId, customer.tier);
  const raisedFrom = highestTier(customer.raisedFrom ? [customer.raisedFrom] : []);
  const raised = customer.proven === null || raisedFrom !== undefined;
  const carries = raised && granted !== undefined && granted !== 'free' && granted === user.subscriptionTier;
  return { proven: false, carries, raisedFrom };
}
