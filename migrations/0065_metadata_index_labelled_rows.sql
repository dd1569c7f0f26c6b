-- The metadata indexes of documents and expenses (0019) hold the rows that carry labels only. Every insert
-- and every non-HOT update of a row wrote a GIN entry, the empty item of `{}` included, through the index's
-- pending list (a metapage record of ~300 bytes each): for a document, twice on its way to issued, for
-- nothing — a list's filter is one `key:value` pair or more (src/platform/metadata.ts), which no row
-- without labels can match. The lists say `metadata <> '{}'` beside `@>` so that the planner takes these.
DROP INDEX documents_metadata;
CREATE INDEX documents_metadata ON documents USING gin (metadata jsonb_path_ops) WHERE metadata <> '{}'::jsonb;
DROP INDEX expenses_metadata;
CREATE INDEX expenses_metadata ON expenses USING gin (metadata jsonb_path_ops) WHERE metadata <> '{}'::jsonb;
