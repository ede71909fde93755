// The payments provider's effects (Stripe): paid invoices go to the ledger, failed ones open a grace
// period, subscription changes set the user's tier. A customer is a user by a user id in the event's
// metadata, else a remembered link, else the e-mail the payer typed (decision 975); a customer lowers
// no user below what another of their customers pays for. Each is given only the ports
// payments.provider.ts declares.
import {
  keptAs,
  processed,
  num,
  obj,
  str,
  type EffectContext as AnyEffectContext,
  type Json,
  type MatchedUser,
  type Outcome,
} from './provider.ts';
import { highestTier, subscriptionOutcome, toMajorUnits } from './billing-rules.ts';

/** What the effects use: payments.provider.ts declares these ports (the compiler holds the two together). */
type EffectContext = AnyEffectContext<'chat' | 'audit' | 'findUser' | 'billing' | 'deliveries' | 'payments'>;

const DAY_MS = 24 * 60 * 60 * 1000;

interface Match {
  user?: MatchedUser;
  email?: string;
}

function idOf(value: unknown): string | undefined {
  return str(value) ?? str(obj(value).id);
}

function secondsToDate(value: unknown): Date | undefined {
  const seconds = num(value);
  return seconds === undefined ? undefined : new Date(seconds * 1000);
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
 * e-mail. Remembers the pair.
 */
async function matchUser(
  context: EffectContext,
  customerId: string | undefined,
  email: string | undefined,
  object: Json,
): Promise<Match> {
  const address = email?.trim().toLowerCase() || undefined;
  const provenId = provenUserId(object);
  let user = provenId ? await context.findUser({ id: provenId }) : undefined;
  const customer = customerId ? await context.payments.findCustomer(customerId) : undefined;
  if (!user && customer?.userId) user = await context.findUser({ id: customer.userId });
  const typed = address ?? customer?.email ?? undefined;
  if (!user && typed) user = await context.findUser({ email: typed });
  if (customerId && (typed || user)) {
    await context.payments.rememberCustomer({ customerId, userId: user?.id ?? null, email: address ?? null });
  }
  return { user, email: typed ?? user?.email };
}

/** The highest tier another of the user's customers pays for: no event of this one lowers them below it. */
async function paidElsewhere(context: EffectContext, user: MatchedUser, customerId: string | undefined) {
  return customerId ? highestTier(await context.payments.otherTiers(user.id, customerId)) : undefined;
}

function who(match: Match, customerId: string | undefined): string {
  return match.email ?? (customerId ? `customer ${customerId}` : 'an unknown customer');
}

async function clearGracePeriod(context: EffectContext, user: MatchedUser, why: string): Promise<void> {
  if (!(await context.billing.clearGracePeriod(user.id))) return;
  await context.audit({
    action: 'billing.grace_period.clear',
    subjectUserId: user.id,
    targetType: 'user',
    targetId: user.id,
    details: { reason: why },
  });
}

async function invoicePaid(context: EffectContext, invoice: Json, event: Json): Promise<Outcome> {
  const customerId = idOf(invoice.customer);
  const match = await matchUser(context, customerId, str(invoice.customer_email), invoice);
  const invoiceId = str(invoice.id);
  const amountPaid = num(invoice.amount_paid);
  const currency = str(invoice.currency);
  // A zero invoice (trial, full discount) is no revenue; a malformed one has nothing to record.
  if (!invoiceId || amountPaid === undefined || amountPaid <= 0 || !currency)
    return applyHeldChanges(context, customerId, match);
  const amount = toMajorUnits(amountPaid, currency);
  const occurredAt =
    secondsToDate(obj(invoice.status_transitions).paid_at) ?? secondsToDate(event.created) ?? context.now;
  const recorded = await context.payments.recordPayment({
    externalId: invoiceId,
    userId: match.user?.id ?? null,
    customerEmail: match.email ?? null,
    amount,
    currency: currency.toUpperCase(),
    occurredAt,
  });
  // invoice.paid and invoice.payment_succeeded both arrive for one invoice: record and tell once.
  if (!recorded) return applyHeldChanges(context, customerId, match);
  await context.audit({
    action: 'billing.payment.record',
    subjectUserId: match.user?.id,
    targetType: 'invoice',
    targetId: invoiceId,
    details: { amount, currency: currency.toUpperCase() },
  });
  if (match.user) await clearGracePeriod(context, match.user, 'invoice paid');
  await context.chat({
    title: `Payment received: ${amount} ${currency.toUpperCase()} from ${who(match, customerId)}`,
    text: match.user ? '' : 'No user of ours matches this customer.',
    level: 'success',
    url: str(invoice.hosted_invoice_url),
    fields: [{ name: 'Invoice', value: str(invoice.number) ?? invoiceId }],
  });
  return applyHeldChanges(context, customerId, match);
}

async function invoiceFailed(context: EffectContext, invoice: Json): Promise<Outcome> {
  const { gracePeriodDays } = context.billing;
  const customerId = idOf(invoice.customer);
  const match = await matchUser(context, customerId, str(invoice.customer_email), invoice);
  const fields: { name: string; value: string }[] = [];
  const attempts = num(invoice.attempt_count);
  if (attempts !== undefined) fields.push({ name: 'Attempt', value: String(attempts) });
  // While another of the user's customers pays, this customer's failure is no reason to end the tier.
  const elsewhere = match.user ? await paidElsewhere(context, match.user, customerId) : undefined;
  const paying = elsewhere !== undefined && elsewhere !== 'free';
  if (paying) fields.push({ name: 'Grace period', value: `not opened: another customer pays for ${elsewhere}` });
  const grace =
    match.user && !paying
      ? await context.billing.openGracePeriod(match.user.id, new Date(context.now.getTime() + gracePeriodDays * DAY_MS))
      : undefined;
  const graceEnds = grace?.endsAt;
  if (match.user && grace?.opened) {
    await context.audit({
      action: 'billing.grace_period.open',
      subjectUserId: match.user.id,
      targetType: 'user',
      targetId: match.user.id,
      details: { invoice: str(invoice.id), endsAt: grace.endsAt.toISOString() },
    });
  }
  if (graceEnds) fields.push({ name: 'Grace period until', value: graceEnds.toISOString() });
  const amountDue = num(invoice.amount_due);
  const currency = str(invoice.currency);
  const amount =
    amountDue !== undefined && currency ? ` of ${toMajorUnits(amountDue, currency)} ${currency.toUpperCase()}` : '';
  await context.chat({
    title: `Payment failed${amount} for ${who(match, customerId)}`,
    text: match.user ? '' : 'No user of ours matches this customer.',
    level: 'error',
    url: str(invoice.hosted_invoice_url),
    fields,
  });
  return applyHeldChanges(context, customerId, match);
}

/** Stripe's subscription events; they carry a customer id but no e-mail. */
const SUBSCRIPTION_EVENTS = ['customer.subscription.updated', 'customer.subscription.deleted'] as const;

/** Renewals also send `updated`; only a change someone would act on is worth a message. */
function noteworthy(type: string, previous: Json): boolean {
  return (
    type === 'customer.subscription.deleted' ||
    'status' in previous ||
    'items' in previous ||
    'cancel_at_period_end' in previous
  );
}

/** When Stripe created an event (seconds): deliveries come in any order, this says which is newer. */
const createdOf = (event: Json) => num(event.created) ?? 0;

/**
 * Sets the tier a subscription event implies. `origin` is the id of a held delivery applied now on
 * behalf of a later one: its message and audit entry name it.
 */
async function applySubscription(
  context: EffectContext,
  user: MatchedUser,
  whom: string,
  event: Json,
  origin?: string,
): Promise<void> {
  const type = str(event.type) ?? '';
  const data = obj(event.data);
  const subscription = obj(data.object);
  const previous = obj(data.previous_attributes);
  const outcome = subscriptionOutcome(type, subscription);
  const customerId = idOf(subscription.customer);
  if (outcome.tier && customerId) await context.payments.rememberTier(customerId, outcome.tier);
  // A customer lowers the user no further than what another of their customers pays for.
  const floor = outcome.tier ? await paidElsewhere(context, user, customerId) : undefined;
  const tier = outcome.tier && highestTier([outcome.tier, floor ?? outcome.tier]);
  const from = tier ? await context.billing.changeTier(user.id, tier) : undefined;
  const tierChanged = from !== undefined;
  if (tierChanged) {
    await context.audit({
      action: 'billing.subscription.tier_change',
      subjectUserId: user.id,
      targetType: 'user',
      targetId: user.id,
      details: {
        from,
        to: tier,
        subscription: str(subscription.id),
        status: outcome.status,
        ...(origin ? { heldDelivery: origin } : {}),
      },
    });
  }
  if (outcome.clearsGracePeriod) await clearGracePeriod(context, user, `subscription ${outcome.status}`);
  const deleted = type === 'customer.subscription.deleted';
  if (!tierChanged && !noteworthy(type, previous)) return;
  const fields = [{ name: 'Status', value: outcome.status }];
  if (subscription.cancel_at_period_end === true) fields.push({ name: 'Cancels at period end', value: 'yes' });
  if (origin) fields.push({ name: 'Held until now', value: origin });
  if (tier !== outcome.tier) fields.push({ name: 'Tier kept', value: `another customer pays for ${tier}` });
  await context.chat(
    {
      title: `Subscription ${deleted ? 'canceled' : 'updated'} for ${whom}`,
      text: `Tier: ${user.subscriptionTier} → ${tier ?? user.subscriptionTier}`,
      level: deleted || tier === 'free' ? 'warning' : 'info',
      fields,
    },
    origin,
  );
}

/** A customer's subscription deliveries in one status, newest first (locked when they may be settled). */
function subscriptionDeliveries(context: EffectContext, customerId: string, status: 'unmatched' | 'processed') {
  return context.deliveries.find(
    { status, events: SUBSCRIPTION_EVENTS, path: ['data', 'object', 'customer'], value: customerId },
    status === 'unmatched' ? { lock: true } : { limit: 1 },
  );
}

/**
 * The customer's tier follows the newest subscription event by Stripe's `created`, whatever order
 * they came in: among the held ones and `current`, the newest is applied unless an applied one is
 * newer still; the rest are superseded. Runs in the delivery's transaction on locked rows, so each
 * held delivery is settled exactly once. Answers what became of `current`: superseded when another
 * delivery's change stands.
 */
async function applyNewest(
  context: EffectContext,
  customerId: string,
  match: Match & { user: MatchedUser },
  current?: Json,
): Promise<Outcome> {
  const held = await subscriptionDeliveries(context, customerId, 'unmatched');
  const [applied] = await subscriptionDeliveries(context, customerId, 'processed');
  const newestHeld = held[0];
  const heldWins =
    newestHeld !== undefined && (current === undefined || createdOf(newestHeld.payload) > createdOf(current));
  const newest = heldWins ? newestHeld.payload : current;
  const stale = newest === undefined || (applied !== undefined && createdOf(applied.payload) > createdOf(newest));
  const settle = (ids: string[], status: 'processed' | 'superseded') => context.deliveries.settle(ids, status);
  await settle(
    held.filter((d) => stale || d !== newestHeld || !heldWins).map((d) => d.deliveryId),
    'superseded',
  );
  const outcome = current && (stale || heldWins) ? keptAs('superseded') : processed();
  if (stale) return outcome;
  if (heldWins) await settle([newestHeld.deliveryId], 'processed');
  // Read again: this delivery's own effects may have changed the user already.
  const user = (await context.findUser({ id: match.user.id })) ?? match.user;
  await applySubscription(context, user, who(match, customerId), newest, heldWins ? newestHeld.deliveryId : undefined);
  return outcome;
}

/** A checkout or invoice linked the customer to a user: a subscription change held for it applies now. */
async function applyHeldChanges(
  context: EffectContext,
  customerId: string | undefined,
  match: Match,
): Promise<Outcome> {
  if (customerId && match.user) return applyNewest(context, customerId, { ...match, user: match.user });
  return processed();
}

async function subscriptionChanged(context: EffectContext, event: Json): Promise<Outcome> {
  const subscription = obj(obj(event.data).object);
  const customerId = idOf(subscription.customer);
  const match = await matchUser(context, customerId, undefined, subscription);
  if (match.user) {
    if (customerId) return applyNewest(context, customerId, { ...match, user: match.user }, event);
    await applySubscription(context, match.user, who(match, customerId), event);
    return processed();
  }
  // Stripe does not order events: the checkout or invoice naming this customer may still come.
  // Held (`unmatched`), the change is applied when one links the customer to a user.
  const outcome = customerId ? keptAs('unmatched') : processed();
  if (!noteworthy(context.event, obj(obj(event.data).previous_attributes))) return outcome;
  await context.chat({
    title:
      `Subscription ${context.event === 'customer.subscription.deleted' ? 'canceled' : 'updated'} ` +
      `for ${who(match, customerId)}`,
    text: customerId
      ? 'No user of ours matches this customer yet; the change is applied when a checkout or invoice links one.'
      : 'No user of ours matches this customer.',
    level: 'info',
    fields: [{ name: 'Status', value: subscriptionOutcome(context.event, subscription).status }],
  });
  return outcome;
}

async function checkoutCompleted(context: EffectContext, session: Json): Promise<Outcome> {
  const customerId = idOf(session.customer);
  const match = await matchUser(
    context,
    customerId,
    str(obj(session.customer_details).email) ?? str(session.customer_email),
    session,
  );
  const total = num(session.amount_total);
  const currency = str(session.currency);
  const fields = [{ name: 'Mode', value: str(session.mode) ?? 'payment' }];
  if (total !== undefined && currency)
    fields.push({ name: 'Amount', value: `${toMajorUnits(total, currency)} ${currency.toUpperCase()}` });
  await context.chat({
    title: `Checkout completed by ${who(match, customerId)}`,
    text: match.user ? '' : 'No user of ours matches this customer yet.',
    level: 'success',
    fields,
  });
  return applyHeldChanges(context, customerId, match);
}

/** What a payments event causes, by its type; other events are stored only. */
export async function applyPaymentsEvent(context: EffectContext): Promise<Outcome> {
  const data = obj(context.body.data);
  const object = obj(data.object);
  switch (context.event) {
    case 'invoice.paid':
    case 'invoice.payment_succeeded':
      return invoicePaid(context, object, context.body);
    case 'invoice.payment_failed':
      return invoiceFailed(context, object);
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
      return subscriptionChanged(context, context.body);
    case 'checkout.session.completed':
      return checkoutCompleted(context, object);
    default:
      return processed();
  }
}
