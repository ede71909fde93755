// Newest first, in the order the indexes keep. Drizzle writes an index's `.desc()` as
// `DESC NULLS LAST`, while its `desc()` in an ORDER BY is PostgreSQL's `DESC` (nulls first): the
// planner serves an ORDER BY from an index only in the index's own order, so with `desc()` it reads
// and sorts the whole table instead (decision 122). Every repository sorts descending with this.
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';

export const descending = (column: SQLWrapper): SQL => sql`${column} DESC NULLS LAST`;
