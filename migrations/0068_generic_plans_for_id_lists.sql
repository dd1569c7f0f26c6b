-- The render jobs read their documents together (prints/render-job.ts, documents/snapshot.ts), `d.id = ANY($1)`.
-- Prepared as such, PostgreSQL planned it again at every call: a plan for the list's actual values (one to eight ids)
-- always looks cheaper than the generic plan's estimate of ten, so the generic one is never chosen
-- (pg_prepared_statements: custom plans only), and that planning was ~0.27 ms a read (three quarters of the
-- statement's time). Inside this function the plan is generic, made once a connection; the outer call plans the same
-- either way, so it is generic from its sixth run. (The job runner's done marks, `id = ANY($1)` on jobs, measured
-- slower this way: their custom plan is cheap, and the generic one is a bitmap scan.)
CREATE FUNCTION documents_with_account(ids text[]) RETURNS TABLE(document documents, account_id text)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN QUERY SELECT d, b.account_id FROM documents d JOIN businesses b ON b.id = d.business_id WHERE d.id = ANY(ids);
END $$;
