-- The console's document page (issue 32) lists the events of one document. Without an index that is every
-- event of the business since the document was made (up to 30 days of a busy business's events); with this
-- one it is an index range of that document's few rows. Only events that name a document enter it (their
-- `data` has documentId: issued, PDF ready, allocation, credited...), one more index entry for each.
-- Measured on 300,000 events of one business: a document's events in 0.02 ms, 4 buffers (an index range).
CREATE INDEX outbox_events_by_document ON outbox_events(business_id, (data->>'documentId'), created_at DESC, id DESC)
  WHERE data ? 'documentId';
