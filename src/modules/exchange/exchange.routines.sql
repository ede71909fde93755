-- A venue's days of one user in day order with their counts, read from the index alone: a list's total
-- sums them, and a deep page walks them oldest first and stops at its day (trades.repository.ts,
-- decision 191). Written here because the schema's index builder has no INCLUDE.
CREATE INDEX exchange_trade_days_venue_day_idx ON exchange_trade_days (user_id, exchange, day) INCLUDE (total_trades);
