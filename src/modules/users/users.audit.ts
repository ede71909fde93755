// The audited changes of an account's billing state (its tier and payment grace period), which this
// module owns. It writes none of them itself: the payments webhook and admin's grace-period job record
// them, each writer bound to this list beside its own. Declared once here; src/declarations.ts
// gathers every module's list into the database's CHECK.

export const BILLING_AUDIT_ACTIONS = [
  'billing.grace_period.clear',
  'billing.grace_period.expired',
  'billing.grace_period.open',
  'billing.payment.record',
  'billing.subscription.tier_change',
] as const;
export type BillingAuditAction = (typeof BILLING_AUDIT_ACTIONS)[number];
