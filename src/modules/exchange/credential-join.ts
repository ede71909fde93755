// The credential a live order trades with, read as a join of another module's statement (decision 650): the
// orders module hands it to the trading gate's statement, so the credential, the halts, the limits and the
// user's counts travel as one statement where they were two on two of the pool's connections. The rows and
// the choice are the credentials service's `resolve`: the named credential (the user's, that venue's,
// active) or the user's default one on the venue; the refusals are the same.
import { getTableColumns, getTableName } from 'drizzle-orm';
import { badRequest, notFound } from '../../platform/http/errors.ts';
import type { CredentialRow } from './credentials.repository.ts';
import { exchangeCredentials } from './exchange.tables.ts';
import type { Venue } from './venues.domain.ts';

const COLUMNS = Object.entries(getTableColumns(exchangeCredentials));
/** Each column under a name of its own in the joining statement's row (`oc_<column>`). */
const ALIASES = COLUMNS.map(([, column]) => `oc_${column.name}`);
const SELECTED = COLUMNS.map(([, column]) => `ec."${column.name}"`).join(', ');
const JOIN_COLUMNS = COLUMNS.map(([, column], n) => `order_credential."${column.name}" AS ${ALIASES[n]}`).join(', ');
const TABLE = getTableName(exchangeCredentials);

/**
 * The join's text, its one parameter `$first`: the named credential of the user (`u.user_id`) by its id, or
 * the default one on a venue, as `findDefault` orders them (an active one, a validated one before an
 * unvalidated one, the most recently created first). Built once per kind and parameter number.
 */
function joinText(named: boolean, first: number): string {
  const where = named
    ? `ec.id = $${first}::uuid LIMIT 1`
    : `ec.exchange_name = $${first}::text AND ec.is_active
      ORDER BY CASE ec.validation_status WHEN 'valid' THEN 0 WHEN 'pending' THEN 1 ELSE 2 END,
        ec.created_at DESC NULLS LAST
      LIMIT 1`;
  return `LEFT JOIN LATERAL (SELECT ${SELECTED} FROM "${TABLE}" AS ec
    WHERE ec.user_id = u.user_id AND ${where}) AS order_credential ON true`;
}
const texts = new Map<number, [named: string, byDefault: string]>();

/** The credential row as the joining statement answers it (driver values), as Drizzle maps it; undefined if none. */
export function credentialRowOf(raw: Record<string, unknown>): CredentialRow | undefined {
  if (raw[ALIASES[0]!] === null || raw[ALIASES[0]!] === undefined) return undefined;
  const row: Record<string, unknown> = {};
  COLUMNS.forEach(([key, column], n) => {
    const value = raw[ALIASES[n]!];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  });
  return row as CredentialRow;
}

/**
 * The credential an order may trade with, of the row read for it: the named one (404 when it is not the user's,
 * 400 when it is another venue's or inactive) or the default one (404 when the user has none active).
 */
export function chosenCredential(row: CredentialRow | undefined, venue: Venue, credentialId?: string): CredentialRow {
  if (!credentialId) {
    if (!row) throw notFound(`No active ${venue} credential; add one with POST /api/exchange/credentials`);
    return row;
  }
  if (!row) throw notFound('Credential not found');
  if (row.exchangeName !== venue)
    throw badRequest(`Credential ${credentialId} is for ${row.exchangeName}, not ${venue}`);
  if (!row.isActive) throw badRequest(`Credential ${credentialId} is inactive; activate it first`);
  return row;
}

/** A join of another module's statement reading an order's credential (its parameter `$first`), and its choice. */
export interface CredentialJoin {
  join: string;
  columns: string;
  params: unknown[];
  /** The credential chosen from the statement's row; throws the refusal `chosenCredential` throws. */
  of(row: Record<string, unknown>): CredentialRow;
}

export function credentialJoin(venue: Venue, credentialId: string | undefined, first: number): CredentialJoin {
  let built = texts.get(first);
  if (!built) texts.set(first, (built = [joinText(true, first), joinText(false, first)]));
  return {
    join: credentialId ? built[0] : built[1],
    columns: JOIN_COLUMNS,
    params: [credentialId ?? venue],
    of: (row) => chosenCredential(credentialRowOf(row), venue, credentialId),
  };
}
