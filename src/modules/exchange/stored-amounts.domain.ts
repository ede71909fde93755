// Whether a venue's amount can be stored: amounts are numeric(38, 18) columns (exchange.tables.ts),
// so at most 20 digits before the point; finer fractions are rounded by PostgreSQL as it stores them.
// A value beyond that would fail the whole statement (numeric field overflow), and with it every
// later sync of the same window: such a record is skipped and reported instead (issue 37).
import { Decimal } from 'decimal.js';

const PRECISION = 38;
const SCALE = 18;
const BOUND = new Decimal(10).pow(PRECISION - SCALE);

/** Why the amount cannot be stored, or undefined when it can (null and absent amounts are the caller's to judge). */
export function unstorableAmount(text: string | null | undefined): string | undefined {
  if (text === null || text === undefined) return undefined;
  let value: Decimal;
  try {
    value = new Decimal(text);
  } catch {
    return `not a number: ${JSON.stringify(text.slice(0, 40))}`;
  }
  if (!value.isFinite()) return `not a finite number: ${text.slice(0, 40)}`;
  if (value.toDecimalPlaces(SCALE).abs().gte(BOUND))
    return `beyond numeric(${PRECISION}, ${SCALE}): ${text.slice(0, 40)}`;
  return undefined;
}
