-- Issue 30: a document converted from another (POST …/documents/{id}/convert) takes quantities of its
-- source's lines. One row per line of an issued converted document, written in the transaction of its
-- issue after the source rows are locked (documents/conversion-issue.ts), so racing conversions of one
-- source are checked one after the other and never take more than the source holds. `stage` is what
-- the target's type does with the quantities (doc-types.ts `fulfils`): an order's quantities may be
-- delivered once and invoiced once, each never beyond the order. Rows never change: the quantities a
-- document took are a fact of its issue, as the document itself.
CREATE TABLE document_sources (
  business_id text NOT NULL REFERENCES businesses(id),
  document_id text NOT NULL REFERENCES documents(id),
  line_index integer NOT NULL CHECK (line_index >= 0),
  source_id text NOT NULL REFERENCES documents(id),
  source_line_index integer NOT NULL CHECK (source_line_index >= 0),
  stage text NOT NULL CHECK (stage IN ('order', 'delivery', 'return', 'invoice')),
  quantity numeric(19, 4) NOT NULL CHECK (quantity > 0),
  created_at timestamptz(3) NOT NULL,
  PRIMARY KEY (document_id, line_index),
  CHECK (source_id <> document_id)
);
CREATE INDEX document_sources_source ON document_sources(source_id, stage, source_line_index);

CREATE TRIGGER document_sources_immutable BEFORE UPDATE OR DELETE ON document_sources
  FOR EACH ROW EXECUTE FUNCTION refuse_change();
CREATE TRIGGER document_sources_no_truncate BEFORE TRUNCATE ON document_sources
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();
