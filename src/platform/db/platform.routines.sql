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
