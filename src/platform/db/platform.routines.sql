-- Counts kept by the database per key, for any module's table (docs/decisions/124). A statement
-- trigger passes: the counts table, its key columns, the key expressions over a source row `r`, and
-- optionally a condition on `r` that a row must meet to be counted. The statement's rows are added
-- (+1) and taken away (-1) as signed deltas grouped by key; an update moves rows between keys, and a
-- key whose delta nets to zero writes nothing. Triggers name their transition tables new_rows and
-- old_rows.
CREATE FUNCTION kept_counts_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  target text := TG_ARGV[0];
  columns text := TG_ARGV[1];
  keys text := TG_ARGV[2];
  counted text := coalesce(nullif(TG_ARGV[3], ''), 'true');
  changes text := CASE TG_OP
    WHEN 'INSERT' THEN format('SELECT 1, %1$s FROM new_rows AS r WHERE %2$s', keys, counted)
    WHEN 'DELETE' THEN format('SELECT -1, %1$s FROM old_rows AS r WHERE %2$s', keys, counted)
    ELSE format('SELECT -1, %1$s FROM old_rows AS r WHERE %2$s UNION ALL SELECT 1, %1$s FROM new_rows AS r WHERE %2$s', keys, counted)
  END;
BEGIN
  EXECUTE format(
    -- In key order: concurrent writers then take the rows' locks in one order, never each other's in turn.
    'INSERT INTO %1$I AS k (%2$s, n) SELECT %2$s, sum(sign) FROM (%3$s) AS changes(sign, %2$s) GROUP BY %2$s HAVING sum(sign) <> 0 '
    'ORDER BY %2$s '
    'ON CONFLICT (%2$s) DO UPDATE SET n = k.n + excluded.n', target, columns, changes);
  IF TG_OP <> 'INSERT' THEN
    EXECUTE format('DELETE FROM %I WHERE n = 0', target);
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE FUNCTION kept_counts_clear() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  EXECUTE format('DELETE FROM %I', TG_ARGV[0]);
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
-- A time-ordered id (UUID version 7, RFC 9562: milliseconds since the epoch, then random bits), the
-- kind the app gives audit entries, for entries the database writes itself (set-based jobs,
-- src/platform/audit.ts `auditFrom`). A version 4 UUID with its first 48 bits replaced by the time
-- and its version nibble raised from 4 to 7 (bits 52 and 53 set).
CREATE FUNCTION uuid_v7(at timestamptz DEFAULT clock_timestamp()) RETURNS uuid LANGUAGE sql VOLATILE AS $fn$
  SELECT encode(
    set_bit(set_bit(
      overlay(uuid_send(gen_random_uuid())
        PLACING substring(int8send(floor(extract(epoch FROM at) * 1000)::bigint) FROM 3) FROM 1 FOR 6),
      52, 1), 53, 1),
    'hex')::uuid
$fn$;
