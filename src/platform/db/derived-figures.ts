// Figures the database keeps as rows are written (declared in a module's *.figures.ts, their triggers
// generated, decision 240; or a bespoke routine of its *.routines.sql), and how `db:reconcile` checks
// and rebuilds them: each has a function answering the figures as its source rows say they are
// (docs/decisions/124).
import { sql } from 'drizzle-orm';
import type { DbExecutor } from './database.ts';
import { rowsOf } from './database.ts';

export interface DerivedFigures {
  /** The table the triggers keep. */
  table: string;
  /** Its primary key's columns. */
  key: readonly string[];
  /** A set-returning function of the table's row type: the figures recomputed from `sources`. */
  recomputed: string;
  /** The tables they are derived from: held against writes while the figures are rebuilt. */
  sources: readonly string[];
}

/** How far a table of figures was from its sources: rows missing, rows it should not have, rows that differ. */
interface FiguresDifference {
  table: string;
  missing: number;
  extra: number;
  differing: number;
}

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Compares each table of figures with its recomputation; with `mend`, rebuilds those that differ, in
 * one transaction that holds their sources against writes (SHARE: readers go on), so nothing written
 * meanwhile is lost or counted twice.
 */
export async function reconcileFigures(
  db: DbExecutor,
  figures: readonly DerivedFigures[],
  options: { mend: boolean },
): Promise<FiguresDifference[]> {
  return db.transaction(async (tx) => {
    const sources = [...new Set(figures.flatMap((f) => f.sources))];
    if (options.mend) await tx.execute(sql.raw(`LOCK TABLE ${sources.map(ident).join(', ')} IN SHARE MODE`));
    const differences: FiguresDifference[] = [];
    for (const f of figures) {
      const table = ident(f.table);
      const keyed = f.key.map(ident);
      const [row] = rowsOf<{ missing: number; extra: number; differing: number }>(
        await tx.execute(
          sql.raw(`
            SELECT count(*) FILTER (WHERE kept.${keyed[0]} IS NULL)::int AS missing,
                   count(*) FILTER (WHERE truth.${keyed[0]} IS NULL)::int AS extra,
                   count(*) FILTER (WHERE truth.${keyed[0]} IS NOT NULL
                     AND kept.${keyed[0]} IS NOT NULL)::int AS differing
            FROM ${f.recomputed} AS truth FULL JOIN ${table} AS kept USING (${keyed.join(', ')})
            WHERE ROW(truth.*) IS DISTINCT FROM ROW(kept.*)`),
        ),
      );
      const difference = {
        table: f.table,
        missing: Number(row?.missing ?? 0),
        extra: Number(row?.extra ?? 0),
        differing: Number(row?.differing ?? 0),
      };
      differences.push(difference);
      if (options.mend && difference.missing + difference.extra + difference.differing > 0) {
        await tx.execute(sql.raw(`DELETE FROM ${table}`));
        await tx.execute(sql.raw(`INSERT INTO ${table} SELECT * FROM ${f.recomputed}`));
      }
    }
    return differences;
  });
}
