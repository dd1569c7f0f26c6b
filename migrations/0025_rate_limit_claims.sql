-- Raised rate limits claimed in blocks (issue 17). Under a limit of thousands a minute, every request
-- of a key took the key's advisory lock in rate_limit_hit_seconds (0013): one round trip per request,
-- and the requests of one key queued on its lock (1.4 ms a hit at 130 issued documents a second). A
-- process now takes up to p_want hits of the current second at once and spends them itself in that
-- second (src/platform/rate-limit.ts). What it takes counts as used, so never more than p_lim pass;
-- what it does not spend before the second ends is lost to it (at most p_want - 1 a second a process).
CREATE FUNCTION rate_limit_take_seconds(p_key text, p_now bigint, p_window bigint, p_lim integer, p_want integer)
RETURNS TABLE (granted integer, remaining integer, retry_after_ms bigint)
LANGUAGE plpgsql AS $$
DECLARE
  s record;
  fresh boolean;
  g integer;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('rate_limit_seconds'), hashtext(p_key));
  SELECT * INTO s FROM rate_limit_seconds_state(p_key, p_now, p_window, p_lim);
  IF s.used >= p_lim THEN
    RETURN QUERY SELECT 0, 0, s.retry_after_ms;
    RETURN;
  END IF;
  g := least(greatest(p_want, 1), p_lim - s.used)::integer;
  INSERT INTO rate_limit_seconds AS r VALUES (p_key, floor(p_now / 1000.0)::bigint, g)
    ON CONFLICT (key_id, second) DO UPDATE SET n = r.n + g
    RETURNING xmax = 0 INTO fresh;
  IF fresh THEN
    DELETE FROM rate_limit_seconds WHERE key_id = p_key AND second <= floor((p_now - p_window - 999) / 1000.0);
  END IF;
  RETURN QUERY SELECT g, (p_lim - s.used - g)::integer, 0::bigint;
END $$;
