-- When an intel event's outcome is due: its expiry, else a day after its detection (DEFAULT_HORIZON_MS
-- of intel-scoring.domain.ts). Immutable in fact, as a fixed number of seconds added to an instant
-- does not depend on the time zone (PostgreSQL marks timestamptz + interval only stable, for months
-- and days), so that the scoring queue can be indexed by it.
CREATE FUNCTION intel_horizon(expires_at timestamptz, detected_at timestamptz) RETURNS timestamptz
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT COALESCE(expires_at, detected_at + interval '86400 seconds')
$fn$;
--> statement-breakpoint
-- The scoring job's queue in its order (intel.repository.ts `maturedUnscored`): events still waiting
-- for an outcome and not given up (SCORING_GIVE_UP_AFTER is 3), never tried first, then by horizon.
-- The job reads the first matured ones and stops, however many wait.
CREATE INDEX market_intel_events_scoring_queue_idx ON market_intel_events
  (scoring_attempted_at NULLS FIRST, intel_horizon(expires_at, detected_at), id)
  WHERE outcome_pct IS NULL AND scoring_attempts < 3;
--> statement-breakpoint
-- An agent activity event as the feed's JSON text (the wire's fields, in its order; the time as
-- Date#toISOString writes it), kept in the row as it is written (decision 188).
CREATE FUNCTION agent_activity_wire(
  id uuid, agent_id text, agent_name text, kind text, rationale text, action jsonb, created_at timestamptz
) RETURNS text LANGUAGE sql STABLE AS $fn$
  SELECT row_to_json(w)::text FROM (
    SELECT $1 AS id, $2 AS agent_id, $3 AS agent_name, $4 AS kind, $5 AS rationale, $6 AS action,
      to_char($7 AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at
  ) AS w
$fn$;
--> statement-breakpoint
CREATE FUNCTION agent_activity_wire_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  NEW.wire := agent_activity_wire(NEW.id, NEW.agent_id, NEW.agent_name, NEW.kind, NEW.rationale, NEW.action, NEW.created_at);
  RETURN NEW;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER agent_activity_wire_on_write BEFORE INSERT OR UPDATE ON agent_activity_events
  FOR EACH ROW EXECUTE FUNCTION agent_activity_wire_follow();
--> statement-breakpoint
-- An intel event as the feed's JSON text (the wire's fields, in its order, as intelEventWire writes
-- them: times as Date#toISOString writes them, the scoring error only while the event has no
-- outcome), kept in the row as it is written and as it changes (decision 190).
CREATE FUNCTION market_intel_wire(
  id uuid, event_type text, asset text, symbol text, direction text, source text, trust_tier text,
  raw_note text, strength double precision, evidence jsonb, detected_at timestamptz, expires_at timestamptz,
  created_at timestamptz, outcome_pct double precision, scoring_error text, scoring_attempts integer
) RETURNS text LANGUAGE sql STABLE AS $fn$
  SELECT row_to_json(w)::text FROM (
    SELECT $1 AS id, $2 AS event_type, $3 AS asset, $4 AS symbol, $5 AS direction, $6 AS source,
      $7 AS trust_tier, $8 AS raw_note, $9 AS strength, $10 AS evidence,
      to_char($11 AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS detected_at,
      to_char($12 AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS expires_at,
      to_char($13 AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at,
      $14 AS outcome_pct, CASE WHEN $14 IS NULL THEN $15 END AS scoring_error, $16 AS scoring_attempts
  ) AS w
$fn$;
--> statement-breakpoint
CREATE FUNCTION market_intel_wire_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  NEW.wire := market_intel_wire(NEW.id, NEW.event_type, NEW.asset, NEW.symbol, NEW.direction, NEW.source,
    NEW.trust_tier, NEW.raw_note, NEW.strength, NEW.evidence, NEW.detected_at, NEW.expires_at, NEW.created_at,
    NEW.outcome_pct, NEW.scoring_error, NEW.scoring_attempts);
  RETURN NEW;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER market_intel_wire_on_write BEFORE INSERT OR UPDATE ON market_intel_events
  FOR EACH ROW EXECUTE FUNCTION market_intel_wire_follow();
