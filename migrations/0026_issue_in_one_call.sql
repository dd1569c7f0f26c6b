-- The hot path in one round trip (issue 28). Node computes everything that needs no lock (totals,
-- snapshot, journal lines, the audit row's canonical text); these functions take the locks, the
-- numbers and the hash and write the rows, so locks are held for one call only. Additive only.
--
-- A value that only the database knows (the document's number) is written into texts Node built by
-- joining their parts with it: `parts` is the text split where the number goes.

-- A text Node split where the database's value goes, joined with that value (a text of one part has no hole).
CREATE FUNCTION join_parts(parts jsonb, fill text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT string_agg(x, coalesce(fill, '') ORDER BY i) FROM jsonb_array_elements_text(parts) WITH ORDINALITY AS t(x, i)
$$;

-- Appends one row to an audit chain: locks the chain's head (created at the chain's first row),
-- hashes sha256(prev_hash || canonical text) exactly as platform/audit.ts auditHash does, and
-- inserts the row (the trigger audit_log_move_head moves the head onto it).
-- a: {id, chain, at, accountId, keyId, businessId, action, entityType, entityId,
--     hashParts: text[] (the canonical JSON of the hashed fields, `before` and `after` among them)}
CREATE FUNCTION audit_append(a jsonb, fill text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  prev text;
  fields text := join_parts(a->'hashParts', fill);
  hashed jsonb := fields::jsonb;
BEGIN
  SELECT last_hash INTO prev FROM audit_chain_heads WHERE chain = a->>'chain' FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO audit_chain_heads(chain, last_seq, last_hash) VALUES (a->>'chain', 0, repeat('0', 64)) ON CONFLICT (chain) DO NOTHING;
    SELECT last_hash INTO prev FROM audit_chain_heads WHERE chain = a->>'chain' FOR UPDATE;
  END IF;
  INSERT INTO audit_log(id, chain, at, account_id, key_id, business_id, action, entity_type, entity_id, before, after, prev_hash, hash)
  VALUES (a->>'id', a->>'chain', (a->>'at')::timestamptz, a->>'accountId', a->>'keyId', a->>'businessId', a->>'action',
          a->>'entityType', a->>'entityId',
          hashed->'before', hashed->'after',
          prev, encode(sha256(convert_to(prev || fields, 'UTF8')), 'hex'));
END $$;

-- Writes one journal entry with its accounts and lines (ledger/store.ts postEntry builds j) and
-- answers its number. `num`, when given, is joined into the reference and the description.
-- j: {id, businessId, date, source, documentId, expenseId, referenceParts, referenceDocType,
--     descriptionParts, reversesEntryId, keyId, at, accounts: [...], lines: [...]}
CREATE FUNCTION journal_post(j jsonb, num bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  entry bigint;
  fill text := num::text;
BEGIN
  INSERT INTO ledger_accounts(business_id, code, name, kind, trial_balance_code, trial_balance_name, party_id, created_at, updated_at)
  SELECT j->>'businessId', x.code, x.name, x.kind, x.trial_balance_code, x.trial_balance_name, x.party_id, (j->>'at')::timestamptz, (j->>'at')::timestamptz
    FROM jsonb_to_recordset(j->'accounts') AS x(code text, name text, kind text, trial_balance_code text, trial_balance_name text, party_id text)
  ON CONFLICT (business_id, code) DO NOTHING;
  INSERT INTO ledger_counters AS c(business_id, last_entry_no) VALUES (j->>'businessId', 1)
  ON CONFLICT (business_id) DO UPDATE SET last_entry_no = c.last_entry_no + 1
  RETURNING last_entry_no INTO entry;
  INSERT INTO journal_entries(id, business_id, entry_no, entry_date, source, document_id, expense_id, reference, reference_doc_type,
                              description, reverses_entry_id, created_by_key_id, created_at)
  VALUES (j->>'id', j->>'businessId', entry, (j->>'date')::date, j->>'source', j->>'documentId', j->>'expenseId',
          CASE WHEN j->'referenceParts' = 'null'::jsonb THEN NULL ELSE join_parts(j->'referenceParts', fill) END,
          (j->>'referenceDocType')::integer,
          left(join_parts(j->'descriptionParts', fill), 50),
          j->>'reversesEntryId', j->>'keyId', (j->>'at')::timestamptz);
  INSERT INTO journal_lines(entry_id, line_no, business_id, account_code, side, amount, currency, foreign_amount)
  SELECT j->>'id', l.n, j->>'businessId', l.account, l.side, l.amount, l.currency, l."foreign"
    FROM jsonb_to_recordset(j->'lines') AS l(n integer, account text, side smallint, amount bigint, currency text, "foreign" bigint);
  RETURN entry;
END $$;

-- What every issued document writes beside its row (documents/issue.ts issuedWrites): its journal
-- entry, its audit row, the document.issued event, the day's usage count and its jobs.
-- w: {journal | null, audit, event: {id, event, accountId, businessId, data, at}, usage: {day, subject, metric},
--     jobs: [{id, kind, businessId, refId, at}]}
CREATE FUNCTION document_issued_writes(w jsonb, num bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  e jsonb := w->'event';
  u jsonb := w->'usage';
BEGIN
  IF w->'journal' <> 'null'::jsonb THEN
    PERFORM journal_post(w->'journal', num);
  END IF;
  PERFORM audit_append(w->'audit', num::text);
  INSERT INTO outbox_events(id, event, account_id, business_id, data, created_at)
  VALUES (e->>'id', e->>'event', e->>'accountId', e->>'businessId', jsonb_set(e->'data', '{docNumber}', to_jsonb(num)), (e->>'at')::timestamptz);
  INSERT INTO usage_daily(day, subject, metric, count) VALUES ((u->>'day')::date, u->>'subject', u->>'metric', 1)
  ON CONFLICT (subject, metric, day) DO UPDATE SET count = usage_daily.count + 1;
  INSERT INTO jobs(id, kind, business_id, ref_id, payload, run_at, created_at)
  SELECT x.id, x.kind, x.business_id, x.ref_id, '{}'::jsonb, x.at, x.at
    FROM jsonb_to_recordset(w->'jobs') AS x(id text, kind text, business_id text, ref_id text, at timestamptz)
  ON CONFLICT (kind, ref_id) DO NOTHING;
END $$;

-- Takes the next number of a business's series (businesses/numbering.ts): the counter row stays
-- locked until the transaction ends, so issuers of one series queue on it and a rollback gives the
-- number back. Never a sequence: sequences are not transactional and would leave gaps.
CREATE FUNCTION next_number(business text, series integer) RETURNS bigint LANGUAGE sql AS $$
  INSERT INTO document_counters(business_id, doc_type, start_number, last_number) VALUES (business, series, 1, 1)
  ON CONFLICT (business_id, doc_type)
  DO UPDATE SET last_number = coalesce(document_counters.last_number, document_counters.start_number - 1) + 1
  RETURNING last_number
$$;

-- Issues a draft in one call (documents/issue.ts). The draft and the business were read without a
-- lock; their xmin says whether they changed since, and then nothing is written and Node reads again.
-- Answers outcome 'issued' with the number, or 'not_found', 'issued_before', 'draft_changed',
-- 'business_changed' (nothing written). The day's allowance and the month's ceiling refuse with
-- SQLSTATE PK001 and PK002 (the call rolls back whole).
CREATE FUNCTION issue_document(p jsonb) RETURNS TABLE(outcome text, doc_number bigint) LANGUAGE plpgsql AS $$
DECLARE
  bid text := p->>'businessId';
  d record;
  b record;
  n bigint;
  c bigint;
  sn jsonb := p->'snapshot';
BEGIN
  SELECT xmin::text AS version, status INTO d FROM documents WHERE id = p->>'id' AND business_id = bid FOR UPDATE;
  IF NOT FOUND THEN RETURN QUERY SELECT 'not_found'::text, NULL::bigint; RETURN; END IF;
  IF d.status = 'issued' THEN RETURN QUERY SELECT 'issued_before'::text, NULL::bigint; RETURN; END IF;
  IF d.version <> p->>'draftVersion' THEN RETURN QUERY SELECT 'draft_changed'::text, NULL::bigint; RETURN; END IF;
  SELECT xmin::text AS version INTO b FROM businesses WHERE id = bid;
  IF b.version IS DISTINCT FROM p->>'businessVersion' THEN RETURN QUERY SELECT 'business_changed'::text, NULL::bigint; RETURN; END IF;

  INSERT INTO usage_daily(day, subject, metric, count) VALUES ((p->>'day')::date, 'biz:' || bid, 'documents_opened', 1)
  ON CONFLICT (subject, metric, day) DO UPDATE SET count = usage_daily.count + 1 WHERE usage_daily.count < (p->>'perDay')::bigint
  RETURNING count INTO c;
  IF c IS NULL THEN RAISE EXCEPTION 'documents issued per business: the daily limit is reached' USING ERRCODE = 'PK001'; END IF;
  c := NULL;
  INSERT INTO document_month_counts(business_id, month, count) VALUES (bid, (p->>'month')::date, 1)
  ON CONFLICT (business_id, month) DO UPDATE SET count = document_month_counts.count + 1
    WHERE p->>'perMonth' IS NULL OR document_month_counts.count < (p->>'perMonth')::bigint
  RETURNING count INTO c;
  IF c IS NULL OR c > (p->>'perMonth')::bigint THEN
    RAISE EXCEPTION 'the business reached its monthly ceiling' USING ERRCODE = 'PK002';
  END IF;
  n := next_number(bid, (p->>'series')::integer);

  -- The issued columns are the frozen snapshot's (audit verify compares them).
  UPDATE documents SET status = 'issued', doc_number = n, party = sn->'party', lines = sn->'lines', payments = sn->'payments',
         vat_rate_bp = (sn->>'vatRateBp')::integer, discount_amount = (sn->'totals'->>'discountAmount')::bigint,
         exchange_rate = sn->>'exchangeRate', exchange_rate_date = (sn->>'exchangeRateDate')::date, exchange_rate_source = sn->>'exchangeRateSource',
         total_ex_vat = (sn->'totals'->>'totalExVat')::bigint, vat_amount = (sn->'totals'->>'vatAmount')::bigint,
         total_inc_vat = (sn->'totals'->>'totalIncVat')::bigint, allocation = p->'allocation', warnings = p->'warnings',
         snapshot = jsonb_set(sn, '{docNumber}', to_jsonb(n)), issued_at = (sn->>'issuedAt')::timestamptz, updated_at = (sn->>'issuedAt')::timestamptz
   WHERE id = p->>'id';
  PERFORM document_issued_writes(p->'writes', n);
  RETURN QUERY SELECT 'issued'::text, n;
END $$;
