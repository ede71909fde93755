-- A refresh token belongs to a device session (docs/decisions/129). A foreign key would delete the
-- tokens of each deleted session by a query per session; these triggers do what it did a statement at
-- a time: a deleted (or truncated) session takes its tokens with it, and a token is refused unless its
-- session exists, which stays locked (FOR KEY SHARE, as a foreign key's check locks it) until the
-- token's transaction ends, so no session is deleted under a token being written.
CREATE FUNCTION refresh_tokens_follow_sessions() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    -- Not TRUNCATE: the statement that fired this may be truncating refresh_tokens too.
    DELETE FROM refresh_tokens;
  ELSE
    DELETE FROM refresh_tokens WHERE session_id = ANY (ARRAY(SELECT id FROM gone_sessions));
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER refresh_tokens_follow_session_delete AFTER DELETE ON device_sessions REFERENCING OLD TABLE AS gone_sessions
  FOR EACH STATEMENT EXECUTE FUNCTION refresh_tokens_follow_sessions();
--> statement-breakpoint
CREATE TRIGGER refresh_tokens_follow_session_truncate AFTER TRUNCATE ON device_sessions
  FOR EACH STATEMENT EXECUTE FUNCTION refresh_tokens_follow_sessions();
--> statement-breakpoint
CREATE FUNCTION refresh_tokens_session_exists() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM 1 FROM device_sessions WHERE id = NEW.session_id FOR KEY SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'insert or update on table "refresh_tokens" violates foreign key constraint "refresh_tokens_session_id_fk"'
      USING ERRCODE = 'foreign_key_violation', TABLE = 'refresh_tokens', CONSTRAINT = 'refresh_tokens_session_id_fk',
            DETAIL = format('Key (session_id)=(%s) is not present in table "device_sessions".', NEW.session_id);
  END IF;
  RETURN NEW;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER refresh_tokens_session_exists BEFORE INSERT OR UPDATE OF session_id ON refresh_tokens
  FOR EACH ROW EXECUTE FUNCTION refresh_tokens_session_exists();

--> statement-breakpoint
-- user_grace_periods follows users.grace_period_ends_at, whatever writes the accounts (decision 182).
-- Row triggers, fired only for a row whose end is set or changes: a sign-in's UPDATE of last_login
-- costs nothing here. An account's deletion takes its row by the foreign key.
CREATE FUNCTION user_grace_periods_follow() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.grace_period_ends_at IS NULL THEN
    DELETE FROM user_grace_periods WHERE user_id = NEW.id;
  ELSE
    INSERT INTO user_grace_periods (user_id, ends_at) VALUES (NEW.id, NEW.grace_period_ends_at)
      ON CONFLICT (user_id) DO UPDATE SET ends_at = EXCLUDED.ends_at;
  END IF;
  RETURN NULL;
END
$fn$;
--> statement-breakpoint
CREATE TRIGGER user_grace_periods_on_insert AFTER INSERT ON users
  FOR EACH ROW WHEN (NEW.grace_period_ends_at IS NOT NULL) EXECUTE FUNCTION user_grace_periods_follow();
--> statement-breakpoint
CREATE TRIGGER user_grace_periods_on_update AFTER UPDATE OF grace_period_ends_at ON users
  FOR EACH ROW WHEN (OLD.grace_period_ends_at IS DISTINCT FROM NEW.grace_period_ends_at) EXECUTE FUNCTION user_grace_periods_follow();
--> statement-breakpoint
-- What db:reconcile compares user_grace_periods with and rebuilds it from.
CREATE FUNCTION user_grace_periods_recomputed() RETURNS SETOF user_grace_periods LANGUAGE sql STABLE AS $fn$
  SELECT id, grace_period_ends_at FROM users WHERE grace_period_ends_at IS NOT NULL
$fn$;
--> statement-breakpoint
INSERT INTO user_grace_periods SELECT * FROM user_grace_periods_recomputed();
--> statement-breakpoint
-- Room on each page for a changed row to stay there: an update that changes no indexed column then
-- writes no index entry (a HOT update). Pages written from now on keep 15% free.
ALTER TABLE users SET (fillfactor = 85);
