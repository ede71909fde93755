// A paper order's one write (paper-placement.service.ts): the row in its final state, its fills and its
// audit entries in one statement, after the engine settled it in the same transaction (decision 415).
import { getTableName } from 'drizzle-orm';
import { auditRowsText, type AuditRowsParams } from '../../platform/audit.ts';
import type { DbExecutor } from '../../platform/db/database.ts';
import { rowsOf } from '../../platform/db/database.ts';
import { executeText } from '../../platform/db/prepared.ts';
import {
  fillColumns,
  INSERT_ORDER,
  ORDER_COLUMNS,
  orderParams,
  patchedAmountsText,
  writtenOrder,
  type FillRow,
  type OrderRow,
} from './orders.rows.ts';
import { orderFills } from './orders.tables.ts';
import { oweText, owedIfLimited } from './daily-loss-owed.repository.ts';
import { dailyLossColumnsText, dailyLossLimitsOf, type DailyLossLimits } from '../trading/index.ts';

/**
 * A paper order written once, in its final state, after the engine settled it in the caller's transaction
 * (`insertFinished`): the row, its fills and its audit entries in one statement whose text is built once
 * (decision 415), answered with the daily loss limits in force as its fills are stored (decision 461) and the
 * order's amounts as stored, not its every column: the rest is the order as given (decision 550). With fills,
 * and a daily loss limit in force, the check after it is written owed with them (decision 1030). A taken
 * idempotency key writes none of them (no row answered).
 */
const INSERT_FINISHED = `WITH claimed AS (${INSERT_ORDER}), fills AS (
    INSERT INTO "${getTableName(orderFills)}" (id, order_id, trade_id, price, amount, fee, fee_currency, maker, at)
    SELECT v.id, claimed.id, v.trade_id, v.price, v.amount, v.fee, v.fee_currency, v.maker, v.at
    FROM claimed, unnest($${ORDER_COLUMNS.length + 1}::uuid[], $${ORDER_COLUMNS.length + 2}::text[],
      $${ORDER_COLUMNS.length + 3}::numeric[], $${ORDER_COLUMNS.length + 4}::numeric[],
      $${ORDER_COLUMNS.length + 5}::numeric[], $${ORDER_COLUMNS.length + 6}::text[],
      $${ORDER_COLUMNS.length + 7}::boolean[], $${ORDER_COLUMNS.length + 8}::timestamptz[])
      WITH ORDINALITY AS v(id, trade_id, price, amount, fee, fee_currency, maker, at, n)
    ORDER BY v.n
  ), entries AS (${auditRowsText(`$${ORDER_COLUMNS.length + 9}`, `$${ORDER_COLUMNS.length + 10}`)}
    WHERE EXISTS (SELECT 1 FROM claimed)),
  owed AS (${oweText(
    owedIfLimited({
      user: 'claimed.user_id',
      mode: 'claimed.mode',
      at: 'claimed.updated_at',
      from: 'FROM claimed',
      when: `cardinality($${ORDER_COLUMNS.length + 1}::uuid[]) > 0`,
      defaultLimit: `$${ORDER_COLUMNS.length + 11}`,
    }),
  )})
  SELECT ${patchedAmountsText('claimed')}, ${dailyLossColumnsText('claimed.user_id')} FROM claimed`;

/** `dailyLossDefault`: the configured default daily loss limit (decision 1030). */
export function createPaperPlacementRepository(dailyLossDefault: string | null) {
  return {
    /**
     * A new order inserted in its final state (`order`), with its fills and its audit entries (`auditRows`),
     * in one statement, named (its text is the same for any order: the fills go as arrays); nothing is
     * written when the idempotency key is taken.
     */
    async insertFinished(
      /** Every column of the order (a stored row with its patch): what is not read back is answered as given. */
      order: OrderRow,
      fills: readonly FillRow[],
      entries: AuditRowsParams,
      executor: DbExecutor,
    ): Promise<{ row: OrderRow; dailyLoss: DailyLossLimits } | 'idempotency_taken'> {
      const [raw] = rowsOf<Record<string, unknown>>(
        await executeText(executor, 'orders_insert_finished', INSERT_FINISHED, [
          ...orderParams(order),
          ...fillColumns(fills),
          ...entries,
          dailyLossDefault,
        ]),
      );
      return raw ? { row: writtenOrder(order, raw), dailyLoss: dailyLossLimitsOf(raw) } : 'idempotency_taken';
    },
  };
}
