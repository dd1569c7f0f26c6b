-- join_parts (0026) in plpgsql: as a SQL function over jsonb_array_elements_text it was planned again
-- at each of its four calls a document (0.2 ms a document of PostgreSQL's time, pg_stat_statements);
-- plpgsql evaluates these expressions without a plan of their own. Same results: the parts joined
-- with the fill (null joins as ''), a text of one part unchanged.
CREATE OR REPLACE FUNCTION join_parts(parts jsonb, fill text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  joined text := parts ->> 0;
  glue text := coalesce(fill, '');
BEGIN
  FOR i IN 1 .. jsonb_array_length(parts) - 1 LOOP
    joined := joined || glue || (parts ->> i);
  END LOOP;
  RETURN joined;
END $$;
