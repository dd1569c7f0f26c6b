-- Rate limits above 1,000 a window, counted per second (issue 17). rate_limit_hit (0001) keeps the
-- exact log of accepted request times: right for the usual limits (60 a minute), but its work and
-- its row grow with the limit. At 200 requests a second under a raised limit every hit rebuilt and
-- rewrote a 12,000-entry array while holding the key's row lock, which capped one key at ~100 issued
-- documents a second on server PostgreSQL (bench/issue.bench.ts). Here a key has at most one row per
-- second of the window; a hit sums at most window/1000 rows under a per-key advisory lock.
--
-- A hit in second s (s = floor(ms / 1000)) counts until the last millisecond of its second has left
-- the window (s * 1000 + 999 <= now - window): for one window plus under a second, so never more
-- than lim are accepted in any sliding window.
CREATE TABLE rate_limit_seconds (
  key_id text NOT NULL,
  second bigint NOT NULL,
  n integer NOT NULL CHECK (n > 0),
  PRIMARY KEY (key_id, second)
);

CREATE FUNCTION rate_limit_seconds_state(p_key text, p_now bigint, p_window bigint, p_lim integer, OUT used bigint, OUT retry_after_ms bigint)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  gone bigint := floor((p_now - p_window - 999) / 1000.0);  -- this second and older have left
  b record;
  need bigint;
BEGIN
  SELECT coalesce(sum(n), 0) INTO used FROM rate_limit_seconds WHERE key_id = p_key AND second > gone;
  retry_after_ms := 0;
  IF used < p_lim THEN RETURN; END IF;
  -- Refused: the next hit fits once enough of the oldest seconds have left the window.
  need := used - p_lim + 1;
  FOR b IN SELECT second, n FROM rate_limit_seconds WHERE key_id = p_key AND second > gone ORDER BY second LOOP
    need := need - b.n;
    IF need <= 0 THEN
      retry_after_ms := b.second * 1000 + 999 + p_window - p_now;
      RETURN;
    END IF;
  END LOOP;
END $$;

CREATE FUNCTION rate_limit_hit_seconds(p_key text, p_now bigint, p_window bigint, p_lim integer)
RETURNS TABLE (allowed boolean, remaining integer, retry_after_ms bigint)
LANGUAGE plpgsql AS $$
DECLARE
  s record;
  fresh boolean;
BEGIN
  -- One key's hits in turn (held until the statement's transaction ends): the sum and the
  -- increment cannot interleave between processes.
  PERFORM pg_advisory_xact_lock(hashtext('rate_limit_seconds'), hashtext(p_key));
  SELECT * INTO s FROM rate_limit_seconds_state(p_key, p_now, p_window, p_lim);
  IF s.used >= p_lim THEN
    RETURN QUERY SELECT false, 0, s.retry_after_ms;
    RETURN;
  END IF;
  INSERT INTO rate_limit_seconds AS r VALUES (p_key, floor(p_now / 1000.0)::bigint, 1)
    ON CONFLICT (key_id, second) DO UPDATE SET n = r.n + 1
    RETURNING xmax = 0 INTO fresh;
  -- A new second began for this key: the seconds that left the window are of no more use.
  IF fresh THEN
    DELETE FROM rate_limit_seconds WHERE key_id = p_key AND second <= floor((p_now - p_window - 999) / 1000.0);
  END IF;
  RETURN QUERY SELECT true, (p_lim - s.used - 1)::integer, 0::bigint;
END $$;
