-- Several documents' PDFs published in one statement (issue 28): the render jobs of one process that finish
-- together send their publish_pdfs arguments as one array, one round trip and one commit for all of them.
-- Each item is publish_pdfs as before (its locks, checks and writes), in the order given: the caller orders
-- the items by business and document, so two batches take the documents' rows and the audit chains' heads in
-- one order. Any error fails the whole batch, and the caller then publishes each item alone.
CREATE FUNCTION publish_pdfs_batch(p jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  answers jsonb := '[]'::jsonb;
  item jsonb;
BEGIN
  FOR item IN SELECT value FROM jsonb_array_elements(p) WITH ORDINALITY AS t(value, n) ORDER BY n LOOP
    answers := answers || jsonb_build_array(publish_pdfs(item));
  END LOOP;
  RETURN answers;
END $$;
