-- metadata: the caller's string labels on businesses, parties, documents and expenses (issue 18).
-- Bounds (20 keys, key 1–40 of [A-Za-z0-9_.-], value ≤ 500) are checked by the API schema
-- (src/platform/metadata.ts). On documents and expenses the immutability triggers of 0002/0004
-- compare whole rows (to_jsonb(NEW) - mutable), so metadata of an issued document or a recorded
-- expense is frozen with the row without touching them.
ALTER TABLE businesses ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}';
ALTER TABLE parties ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}';
ALTER TABLE documents ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}';
ALTER TABLE expenses ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}';

-- Lists filter with `metadata @> '{"k":"v"}'`: jsonb_path_ops serves exactly that operator, smaller than the default opclass.
CREATE INDEX businesses_metadata ON businesses USING gin (metadata jsonb_path_ops);
CREATE INDEX parties_metadata ON parties USING gin (metadata jsonb_path_ops);
CREATE INDEX documents_metadata ON documents USING gin (metadata jsonb_path_ops);
CREATE INDEX expenses_metadata ON expenses USING gin (metadata jsonb_path_ops);
