// realized.csv, pure: one RFC 4180 row per closed lot part, rounded as the summary is (docs/decisions/153, 893).
import { moneyDecimals, roundAmount, roundMoney, type ClosedPart } from './ledger.domain.ts';

/** RFC 4180: fields with a comma, quote, CR or LF quoted, quotes doubled; lines end CRLF. */
function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

// Spreadsheets run a cell starting with one of these as a formula (OWASP "CSV injection").
const FORMULA_START = /^[=+\-@\t\r]/;
/** A text cell (asset, venue): a leading quote when it could run as a formula. Numbers are written as they are. */
const textCell = (value: string) => csvField(FORMULA_START.test(value) ? `'${value}` : value);

const REALIZED_CSV_HEADER = 'asset,exchange,opened_at,closed_at,amount,cost,proceeds,fee,gain,holding_days';

/**
 * The rows of realized.csv: amount to 8 decimals; cost, proceeds and fee to the quote's decimals (2 for
 * fiat and stablecoins, 8 for another quote: `moneyDecimals`); gain = proceeds − fee − cost of the
 * rounded figures (so each row adds up); holding_days whole days between opening
 * and closing (floor), empty with opened_at when no lot covered the amount. A text cell that could
 * run as a formula in a spreadsheet gets a leading quote.
 */
export function realizedCsv(parts: readonly ClosedPart[], quote: string): string {
  const lines = [REALIZED_CSV_HEADER];
  const places = moneyDecimals(quote);
  for (const p of parts) {
    const cost = roundMoney(p.cost, quote);
    const proceeds = roundMoney(p.proceeds, quote);
    const fee = roundMoney(p.fee, quote);
    const days = p.openedAt ? String(Math.floor((p.closedAt.getTime() - p.openedAt.getTime()) / 86_400_000)) : '';
    lines.push(
      [
        textCell(p.asset),
        textCell(p.exchange),
        p.openedAt ? p.openedAt.toISOString() : '',
        p.closedAt.toISOString(),
        roundAmount(p.amount).toFixed(8),
        cost.toFixed(places),
        proceeds.toFixed(places),
        fee.toFixed(places),
        proceeds.minus(fee).minus(cost).toFixed(places),
        days,
      ].join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}
