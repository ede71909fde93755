// Every advisory lock key of the application, in one place so that no two uses ever share one.
// PostgreSQL keeps the one-bigint and the two-int forms apart; both are listed here.

/** One-bigint keys: a single lock each. */
export const ADVISORY_LOCK = {
  /** Migrations at start: two instances starting together migrate one after the other. */
  migrations: 7340912,
  /** The command center's task graph (parents, blockers): edits take it so no two close a cycle. */
  taskGraph: 7340913,
  /** The one reader of the Telegram bot's updates in a deployment (decision 860). */
  telegramUpdates: 7340914,
  /** The local tracker's sub-issue tree: a change of parent takes it so no two close a loop (decision 951). */
  trackerIssueTree: 7340915,
} as const;

/** Two-int namespaces: the first key; the second is `hashtext(name)` of what is locked. */
export const ADVISORY_LOCK_NAMESPACE = {
  /** A scheduled job's run, by job name: one run at a time across instances. */
  jobs: 7340913,
  /** Webhook content deduplication, by provider and body digest. */
  webhookContent: 7340961,
  /** One owner's strategy moves into or out of paper trading, by user id (decision 781). */
  strategyMoves: 7340962,
} as const;
