// A live order's two writes (live-placement.service.ts): its claim (the row and its audit entries, committed
// before the send, decision 385) and the venue's answer applied on the row as the claim left it (decision 420).
import { getTableName } from 'drizzle-orm';
import { auditRowsText, type AuditRowsParams } from '../../platform/audit.ts';
import type { DbExecutor } from '../../platform/db/database.ts';
import { rowsOf } from '../../platform/db/database.ts';
import { executeText } from '../../platform/db/prepared.ts';
import { fillTradesText } from '../exchange/index.ts';
import { dailyLossColumnsText, dailyLossLimitsOf, type DailyLossLimits } from '../trading/index.ts';
import {
  fillColumns,
  INSERT_ORDER,
  ORDER_COLUMNS,
  orderParams,
  patchedAmountsText,
  storedOrder,
  writtenOrder,
  type FillRow,
  type NewOrder,
  type OrderPatch,
  type OrderRow,
} from './orders.rows.ts';
import { orderFills, orders } from './orders.tables.ts';
import { oweText, owedIfLimited } from './daily-loss-owed.repository.ts';

/**
 * A new order's insert with its audit entries (`auditRows`' two values after the order's) in one
 * statement, the entries written only when the order is (a taken idempotency key inserts neither):
 * atomic as a statement is, without a transaction's BEGIN and COMMIT round trips (decision 385). It
 * answers the row's version alone: the row is the order as given, stored (`storedOrder`), so it is not
 * read back column by column (decision 550).
 */
const INSERT_ORDER_AUDITED = `WITH claimed AS (${INSERT_ORDER.replace(
  /RETURNING \*$/,
  'RETURNING xmin::text AS "row_version"',
)}), entries AS (${auditRowsText(
  `$${ORDER_COLUMNS.length + 1}`,
  `$${ORDER_COLUMNS.length + 2}`,
)} WHERE EXISTS (SELECT 1 FROM claimed)) SELECT row_version FROM claimed`;

/**
 * The answer to a live order's send applied to its row as the claim left it, in one statement: the row's
 * update only if its version (`xmin`) is still the claim's (`$22`), and with it, only then, its fills, the
 * user's trades of them and its audit entries; the commit not waiting for the disk (decision 386). No row
 * when the order changed since its claim: nothing is written, and the caller applies the answer under
 * the row's lock (decision 420). When it moved, the row is the claim's with the patch (nothing else could
 * change it at that version), so the statement answers only the patch's amounts as stored (numeric at
 * its scale) and the daily loss limits in force as the fill is stored, for the check after it (decisions
 * 461, 550). Its first 21 parameters are `finishParams`'.
 */
const FINISH_CLAIMED = `WITH unflushed AS (SELECT set_config('synchronous_commit', 'off', true) AS s),
  moved AS (
    UPDATE "${getTableName(orders)}" SET status = $12::text, filled = $13::numeric, cost = $14::numeric,
      fee = $15::numeric, fee_currency = $16::text, average_price = $17::numeric, venue_order_id = $18::text,
      reason = $19::text, not_final = $20::boolean, updated_at = $21::timestamptz
    WHERE id = $1::uuid AND xmin = $22::xid AND EXISTS (SELECT 1 FROM unflushed)
    RETURNING *
  ), fills AS (
    INSERT INTO "${getTableName(orderFills)}" (id, order_id, trade_id, price, amount, fee, fee_currency, maker, at)
    SELECT v.id, $1::uuid, v.trade_id, v.price, v.amount, v.fee, v.fee_currency, v.maker, v.at
    FROM unnest($2::uuid[], $3::text[], $4::numeric[], $5::numeric[], $6::numeric[], $7::text[], $8::boolean[],
      $9::timestamptz[])
      WITH ORDINALITY AS v(id, trade_id, price, amount, fee, fee_currency, maker, at, n)
    WHERE EXISTS (SELECT 1 FROM moved)
    ORDER BY v.n
    ON CONFLICT DO NOTHING
    RETURNING trade_id, price, amount, fee, fee_currency, at
  ), trades AS (${fillTradesText('fills', 'moved')}),
  entries AS (${auditRowsText('$10', '$11')} WHERE EXISTS (SELECT 1 FROM moved)),
  owed AS (${oweText(
    owedIfLimited({
      user: 'moved.user_id',
      mode: 'moved.mode',
      at: 'moved.updated_at',
      from: 'FROM moved',
      when: 'EXISTS (SELECT 1 FROM fills)',
      defaultLimit: '$23',
    }),
  )})
  SELECT ${patchedAmountsText('moved')}, ${dailyLossColumnsText('moved.user_id')} FROM moved`;

/** `FINISH_CLAIMED`'s first 21 parameters: the order's id, its fills as arrays, its audit entries, its patch. */
function finishParams(id: string, patch: Required<OrderPatch>, fills: readonly FillRow[], entries: AuditRowsParams) {
  return [
    id,
    ...fillColumns(fills),
    ...entries,
    patch.status,
    patch.filled,
    patch.cost,
    patch.fee,
    patch.feeCurrency,
    patch.averagePrice,
    patch.venueOrderId,
    patch.reason,
    patch.notFinal,
    patch.updatedAt,
  ];
}

export function createLivePlacementRepository(db: DbExecutor, dailyLossDefault: string | null) {
  return {
    /** A new order's insert, with its audit entries (`auditRows`) written in the same statement. */
    async insertAudited(
      order: NewOrder,
      entries: AuditRowsParams,
      executor: DbExecutor = db,
    ): Promise<{ row: OrderRow; version: string } | 'idempotency_taken'> {
      const [raw] = rowsOf<Record<string, unknown>>(
        await executeText(executor, 'orders_insert_audited', INSERT_ORDER_AUDITED, [...orderParams(order), ...entries]),
      );
      return raw ? { row: storedOrder(order), version: String(raw.row_version) } : 'idempotency_taken';
    },

    /**
     * A live order's answer applied in one statement (`FINISH_CLAIMED`) if the row is still as `claimed`
     * left it (`version`), with the daily loss limits it read; undefined, with nothing written, if it changed since.
     */
    async finishClaimed(
      claimed: OrderRow,
      version: string,
      patch: Required<OrderPatch>,
      fills: readonly FillRow[],
      entries: AuditRowsParams,
    ): Promise<{ row: OrderRow; dailyLoss: DailyLossLimits } | undefined> {
      const params = [...finishParams(claimed.id, patch, fills, entries), version, dailyLossDefault];
      const [raw] = rowsOf<Record<string, unknown>>(
        await executeText(db, 'orders_finish_claimed', FINISH_CLAIMED, params),
      );
      return raw ? { row: writtenOrder({ ...claimed, ...patch }, raw), dailyLoss: dailyLossLimitsOf(raw) } : undefined;
    },
  };
}
