-- Issue 28: every process caches API keys, accounts, plans and businesses in memory and drops an
-- entry when PostgreSQL tells it the row changed. The triggers tell, so that a change made by any
-- process, the CLI or raw SQL reaches every cache; NOTIFY is delivered at commit, in commit order.
-- Channel `pinkas_cache`, payload `<table>:<id>` (the key's digest, the account id, the plan key,
-- the business id), or `<table>:*` after a TRUNCATE. Listeners: src/platform/db/invalidation.ts.

CREATE FUNCTION cache_notify() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  id_column text := TG_ARGV[0];
  old_id text;
  new_id text;
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    old_id := to_jsonb(OLD) ->> id_column;
    PERFORM pg_notify('pinkas_cache', TG_TABLE_NAME || ':' || old_id);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    new_id := to_jsonb(NEW) ->> id_column;
    -- An UPDATE that keeps the id has notified it already (PostgreSQL would fold the repeat anyway).
    IF new_id IS DISTINCT FROM old_id THEN
      PERFORM pg_notify('pinkas_cache', TG_TABLE_NAME || ':' || new_id);
    END IF;
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION cache_notify_truncate() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('pinkas_cache', TG_TABLE_NAME || ':*');
  RETURN NULL;
END $$;

CREATE TRIGGER api_keys_cache_notify AFTER INSERT OR DELETE ON api_keys
  FOR EACH ROW EXECUTE FUNCTION cache_notify('key_hash');
-- lastUsedAt is written once a minute per key and per process; it is not cached, so it notifies no one.
CREATE TRIGGER api_keys_cache_notify_update AFTER UPDATE ON api_keys
  FOR EACH ROW WHEN ((to_jsonb(OLD) - 'last_used_at') IS DISTINCT FROM (to_jsonb(NEW) - 'last_used_at'))
  EXECUTE FUNCTION cache_notify('key_hash');
CREATE TRIGGER accounts_cache_notify AFTER INSERT OR UPDATE OR DELETE ON accounts
  FOR EACH ROW EXECUTE FUNCTION cache_notify('id');
CREATE TRIGGER plans_cache_notify AFTER INSERT OR UPDATE OR DELETE ON plans
  FOR EACH ROW EXECUTE FUNCTION cache_notify('key');
CREATE TRIGGER businesses_cache_notify AFTER INSERT OR UPDATE OR DELETE ON businesses
  FOR EACH ROW EXECUTE FUNCTION cache_notify('id');

CREATE TRIGGER api_keys_cache_notify_truncate AFTER TRUNCATE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION cache_notify_truncate();
CREATE TRIGGER accounts_cache_notify_truncate AFTER TRUNCATE ON accounts
  FOR EACH STATEMENT EXECUTE FUNCTION cache_notify_truncate();
CREATE TRIGGER plans_cache_notify_truncate AFTER TRUNCATE ON plans
  FOR EACH STATEMENT EXECUTE FUNCTION cache_notify_truncate();
CREATE TRIGGER businesses_cache_notify_truncate AFTER TRUNCATE ON businesses
  FOR EACH STATEMENT EXECUTE FUNCTION cache_notify_truncate();
