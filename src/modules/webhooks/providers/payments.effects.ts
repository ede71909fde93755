// The payments provider's effects (Stripe): paid invoices go to the ledger, failed ones open a grace
// period, subscription changes set the user's tier. A customer is a user by a user id in the event's
// metadata, else a remembered link, else the e-mail the payer typed (decision 975); a customer lowers
// no user below what another of their customers pays for, and one matched by a typed e-mail only
// undoes what it raised (decision 1021; payments.customers.ts). Each is given only the ports
// payments.provider.ts declares.
import { keptAs, processed, num, obj, str, type Json, type MatchedUser, type Outcome } from './provider.ts';
import { highestTier, opensGracePeriod, subscriptionOutcome, tierAfter, toMajorUnits } from './billing-rules.ts';
import {
  type EffectContext,
  type Match,
  matchUser,
  paidElsewhere,
  standingOf,
  SUBSCRIPTION_EVENTS,
} from './payments.customers.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

function idOf(value: unknown): string | undefined {
  return str(value) ?? str(obj(value).id);
}

function secondsToDate(value: unknown): Date | undefined {
  const seconds = num(value);
  return seconds === undefined ? undefined : new Date(seconds * 1000);
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
  // A customer matched by a typed e-mail ends no grace period of a tier it does not carry (decision 1021).
  if (match.user && (await standingOf(context, match.user, customerId, match.proven)).carries)
    await clearGracePeriod(context, match.user, 'invoice paid');
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
  // Nor is the failure of one matched by a typed e-mail, unless ending the user's tier ends only what it raised (1021).
  const standing = match.user && !paying ? await standingOf(context, match.user, customerId, match.proven) : undefined;
  const opens = standing !== undefined && opensGracePeriod(standing);
  if (match.user && standing && !opens) {
    const why = standing.carries
      ? `its end would lower the user below ${standing.raisedFrom}, which it did not raise`
      : `it does not pay for ${match.user.subscriptionTier}`;
    fields.push({ name: 'Grace period', value: `not opened: matched by typed e-mail only; ${why}` });
  }
  const grace =
    match.user && opens
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
  match: { whom: string; proven: boolean },
  event: Json,
  origin?: string,
): Promise<void> {
  const type = str(event.type) ?? '';
  const data = obj(event.data);
  const subscription = obj(data.object);
  const previous = obj(data.previous_attributes);
  const outcome = subscriptionOutcome(type, subscription);
  const customerId = idOf(subscription.customer);
  // What the customer may do, as it stood before this change (decision 1021).
  const standing = await standingOf(context, user, customerId, match.proven);
  // A customer lowers the user no further than what another of their customers pays for.
  const floor = outcome.tier ? await paidElsewhere(context, user, customerId) : undefined;
  const wanted = outcome.tier && highestTier([outcome.tier, floor ?? outcome.tier]);
  if (outcome.tier && customerId) await context.payments.rememberTier(customerId, outcome.tier);
  const decided = wanted ? tierAfter(user.subscriptionTier, wanted, standing) : {};
  const tier = decided.tier;
  if (decided.raised && customerId && !standing.carries)
    await context.payments.rememberRaise(customerId, user.subscriptionTier);
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
  // A customer matched by a typed e-mail ends the grace period only of a tier it carried before.
  if (outcome.clearsGracePeriod && standing.carries)
    await clearGracePeriod(context, user, `subscription ${outcome.status}`);
  const deleted = type === 'customer.subscription.deleted';
  if (!tierChanged && !noteworthy(type, previous)) return;
  const fields = [{ name: 'Status', value: outcome.status }];
  if (subscription.cancel_at_period_end === true) fields.push({ name: 'Cancels at period end', value: 'yes' });
  if (origin) fields.push({ name: 'Held until now', value: origin });
  if (wanted && wanted !== outcome.tier)
    fields.push({ name: 'Tier kept', value: `another customer pays for ${wanted}` });
  if (decided.kept) fields.push({ name: 'Tier kept', value: decided.kept });
  const shown = tier ?? user.subscriptionTier;
  await context.chat(
    {
      title: `Subscription ${deleted ? 'canceled' : 'updated'} for ${match.whom}`,
      text: `Tier: ${user.subscriptionTier} → ${shown}`,
      level: deleted || shown === 'free' ? 'warning' : 'info',
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
  const whom = { whom: who(match, customerId), proven: match.proven };
  await applySubscription(context, user, whom, newest, heldWins ? newestHeld.deliveryId : undefined);
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
    await applySubscription(context, match.user, { whom: who(match, customerId), proven: match.proven }, event);
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
