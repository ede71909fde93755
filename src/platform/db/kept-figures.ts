// Figures the database keeps per key, declared once in their module's `<module>.figures.ts`: from the
// declaration come the table's trigger function and triggers, its `_recomputed()` (what db:reconcile
// compares and rebuilds from) and its first fill, written into the routines migration by
// `npm run db:generate` (decision 240). Expressions are SQL over a row of the source table.
import type { DerivedFigures } from './derived-figures.ts';

/** What one column of kept figures holds, per key: a count of rows, a sum, or the least or greatest value. */
export type Figure =
  | { kind: 'count'; where?: string }
  | { kind: 'sum'; of: string }
  | { kind: 'min'; of: string }
  | { kind: 'max'; of: string };

/** The rows of a key (`where`: only those meeting it, e.g. `side = 'buy'`). */
export const count = (where?: string): Figure => ({ kind: 'count', where });
/** Σ of an expression over a key's rows (0 when none is set). */
export const sum = (of: string): Figure => ({ kind: 'sum', of });
/** The least value over a key's rows: read again from them when rows leave the key. */
export const min = (of: string): Figure => ({ kind: 'min', of });
/** The greatest value over a key's rows: read again from them when rows leave the key. */
export const max = (of: string): Figure => ({ kind: 'max', of });

export interface KeptFiguresDeclaration {
  /** The table kept: its columns are the key's then the figures', in this order. */
  table: string;
  /** The table its rows are derived from. */
  source: string;
  /** Each key column and the expression over a source row that gives it. */
  key: Readonly<Record<string, string>>;
  /** Which source rows count at all (e.g. `revoked_at IS NULL`); all when absent. */
  where?: string;
  /** Each figure column, in the table's order. Exactly one is `count()` unfiltered: a key's row goes when it is 0. */
  figures: Readonly<Record<string, Figure>>;
  /**
   * The source rows of one key `k` (a row of the key columns), as a condition the source's indexes
   * serve: where a least or greatest value is read again. Each key expression equal to k's column
   * when absent.
   */
  rowsOfKey?: string;
}

export interface KeptFigures extends DerivedFigures {
  declaration: KeptFiguresDeclaration;
}

const NAME = /^[a-z_][a-z0-9_]*$/;

/** Declares a table of kept figures: what db:reconcile checks and db:generate writes the routines of. */
export function keptFigures(declaration: KeptFiguresDeclaration): KeptFigures {
  const { table, source, key, figures } = declaration;
  const columns = [...Object.keys(key), ...Object.keys(figures)];
  for (const name of [table, source, ...columns]) {
    if (!NAME.test(name) || name === 'sign') throw new Error(`kept figures ${table}: ${name} is not a plain name`);
  }
  if (Object.keys(key).length === 0) throw new Error(`kept figures ${table}: no key`);
  if (presenceOf(declaration) === undefined)
    throw new Error(`kept figures ${table}: exactly one figure must be count() of all its rows`);
  return {
    table,
    key: Object.keys(key),
    recomputed: `${table}_recomputed()`,
    sources: [source],
    declaration,
  };
}

/** The unfiltered count: a key has rows while it is not 0. */
function presenceOf(d: KeptFiguresDeclaration): string | undefined {
  const counts = Object.entries(d.figures).filter(([, f]) => f.kind === 'count' && f.where === undefined);
  return counts.length === 1 ? counts[0]![0] : undefined;
}

type Extreme = Extract<Figure, { kind: 'min' | 'max' }>;
const isExtreme = (entry: [string, Figure]): entry is [string, Extreme] =>
  entry[1].kind === 'min' || entry[1].kind === 'max';

export const isKeptFigures = (figures: DerivedFigures): figures is KeptFigures => 'declaration' in figures;

const list = (items: readonly string[], separator = ', ') => items.join(separator);
const ordinals = (n: number) => list(Array.from({ length: n }, (_, i) => String(i + 1)));

/** The SQL (statements separated by drizzle's breakpoints) that keeps each declared table of figures. */
export function keptFiguresSql(all: readonly DerivedFigures[]): string {
  return all
    .filter(isKeptFigures)
    .flatMap((f) => routinesOf(f.declaration))
    .join('\n--> statement-breakpoint\n');
}

function routinesOf(d: KeptFiguresDeclaration): string[] {
  const { table, source } = d;
  const keys = Object.keys(d.key);
  const figures = Object.entries(d.figures);
  const presence = presenceOf(d)!;
  const extremes = figures.filter(isExtreme);
  const filter = d.where === undefined ? '' : ` WHERE ${d.where}`;

  // A source row as the figures see it: its key, and per figure the value it adds (a count's condition).
  const inputs = figures.flatMap(([column, f]) =>
    f.kind === 'count' ? (f.where === undefined ? [] : [`(${f.where}) AS ${column}`]) : [`${f.of} AS ${column}`],
  );
  const seen = (rows: string) =>
    `SELECT ${list([...keys.map((k) => (d.key[k] === k ? k : `${d.key[k]} AS ${k}`)), ...inputs])} FROM ${rows}${filter}`;
  // The statement's rows as they leave their keys (-1) and arrive (+1). An update's rows that the
  // figures see unchanged (a sign-in's last_login, a credential set to null) cancel out and write nothing.
  const gone = {
    DELETE: seen('old_rows'),
    UPDATE: `${seen('old_rows')}\n        EXCEPT ALL ${seen('new_rows')}`,
  };
  const changes = {
    INSERT: `SELECT 1 AS sign, * FROM (${seen('new_rows')}) AS came`,
    DELETE: `SELECT -1 AS sign, * FROM (${gone.DELETE}) AS gone`,
    UPDATE:
      `SELECT -1 AS sign, * FROM (${gone.UPDATE}) AS gone\n` +
      `        UNION ALL SELECT 1, * FROM (${seen('new_rows')}\n        EXCEPT ALL ${seen('old_rows')}) AS came`,
  };

  const delta = ([column, f]: [string, Figure]) => {
    switch (f.kind) {
      case 'count':
        return f.where === undefined ? 'sum(sign)' : `coalesce(sum(sign) FILTER (WHERE ${column}), 0)`;
      case 'sum':
        return `coalesce(sum(sign * ${column}), 0)`;
      default:
        return `${f.kind}(${column}) FILTER (WHERE sign > 0)`;
    }
  };
  const moved = figures.filter(([, f]) => f.kind === 'count' || f.kind === 'sum').map((e) => `${delta(e)} <> 0`);
  if (extremes.length > 0) moved.push('bool_or(sign > 0)');
  const merged = ([column, f]: [string, Figure]) => {
    if (f.kind === 'min') return `${column} = least(kept.${column}, excluded.${column})`;
    if (f.kind === 'max') return `${column} = greatest(kept.${column}, excluded.${column})`;
    return `${column} = kept.${column} + excluded.${column}`;
  };
  const upsert = (op: keyof typeof changes) => `
      INSERT INTO ${table} AS kept (${list([...keys, ...figures.map(([c]) => c)])})
      SELECT ${list([...keys, ...figures.map(delta)])}
      FROM (${changes[op]}) AS changes
      GROUP BY ${ordinals(keys.length)}
      HAVING ${list(moved, ' OR ')}
      -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
      ORDER BY ${ordinals(keys.length)}
      ON CONFLICT (${list(keys)}) DO UPDATE SET ${list(figures.map(merged))}`;
  const left = (op: 'UPDATE' | 'DELETE') => `(SELECT DISTINCT ${list(keys)} FROM (${gone[op]}) AS gone) AS k`;
  const sameKey = list(
    keys.map((k) => `kept.${k} = k.${k}`),
    ' AND ',
  );
  // A key whose rows all left goes; one that lost some reads its least and greatest again from its rows.
  const emptied = (op: 'UPDATE' | 'DELETE') => `
      DELETE FROM ${table} AS kept USING ${left(op)}
      WHERE ${sameKey} AND kept.${presence} = 0`;
  const rowsOfKey =
    d.rowsOfKey ??
    list(
      keys.map((k) => `${d.key[k]} = k.${k}`),
      ' AND ',
    );
  const reread = (op: 'UPDATE' | 'DELETE') => `
      UPDATE ${table} AS kept SET ${list(extremes.map(([c]) => `${c} = span.${c}`))}
      FROM ${left(op)} CROSS JOIN LATERAL (
        SELECT ${list(extremes.map(([c, f]) => `${f.kind}(${f.of}) AS ${c}`))}
        FROM ${source} WHERE ${rowsOfKey}${d.where === undefined ? '' : ` AND (${d.where})`}
      ) AS span
      WHERE ${sameKey}`;
  const run = (statement: string) => `    EXECUTE $sql$${statement}\n    $sql$;`;
  const shrinking = (op: 'UPDATE' | 'DELETE') =>
    [upsert(op), emptied(op), ...(extremes.length > 0 ? [reread(op)] : [])].map(run).join('\n');

  const aggregate = ([, f]: [string, Figure]) => {
    switch (f.kind) {
      case 'count':
        return f.where === undefined ? 'count(*)::int' : `(count(*) FILTER (WHERE ${f.where}))::int`;
      case 'sum':
        return `coalesce(sum(${f.of}), 0)`;
      default:
        return `${f.kind}(${f.of})`;
    }
  };
  const trigger = (op: string, transitions: string) =>
    `CREATE TRIGGER ${table}_on_${op.toLowerCase()} AFTER ${op} ON ${source}${transitions}\n` +
    `  FOR EACH STATEMENT EXECUTE FUNCTION ${table}_follow();`;

  return [
    `-- ${table}: kept from ${source} as its module's figures.ts declares it (generated by db:generate).
-- Statement triggers, so a bulk write costs one grouped upsert; each statement is planned with its
-- rows (EXECUTE), as a plan cached for a one-row statement may not suit a bulk load's.
CREATE FUNCTION ${table}_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
${run(upsert('INSERT'))}
  ELSIF TG_OP = 'UPDATE' THEN
${shrinking('UPDATE')}
  ELSIF TG_OP = 'DELETE' THEN
${shrinking('DELETE')}
  ELSE
    DELETE FROM ${table};
  END IF;
  RETURN NULL;
END
$fn$;`,
    trigger('INSERT', ' REFERENCING NEW TABLE AS new_rows'),
    trigger('UPDATE', ' REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows'),
    trigger('DELETE', ' REFERENCING OLD TABLE AS old_rows'),
    trigger('TRUNCATE', ''),
    `-- ${table} as the rows of ${source} say it is: what db:reconcile compares it with and rebuilds it from.
CREATE FUNCTION ${table}_recomputed() RETURNS SETOF ${table} LANGUAGE sql STABLE AS $fn$
  SELECT ${list([...keys.map((k) => d.key[k]!), ...figures.map(aggregate)])}
  FROM ${source}${filter}
  GROUP BY ${ordinals(keys.length)}
$fn$;`,
    `-- Filled once for rows stored before it was kept.
INSERT INTO ${table} SELECT * FROM ${table}_recomputed();`,
  ];
}
