// What a stored delivery can be in: the closed set the database checks (webhook_deliveries.status).

/**
 * `processing` while its transaction runs; then `processed`, `failed` (processed again when the
 * sender retries it), `unmatched` (kept, its effect waiting for a later delivery) or `superseded`
 * (its effect will never apply: a newer delivery's did). See `Outcome` in providers/provider.ts.
 */
export const DELIVERY_STATUSES = ['processing', 'processed', 'failed', 'unmatched', 'superseded'] as const;

/** A status a delivery's processing ends in. */
export type DeliveryStatus = Exclude<(typeof DELIVERY_STATUSES)[number], 'processing'>;
