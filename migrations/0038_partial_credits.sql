-- Partial credit notes (issue 29): a document may be credited by several credit notes, each naming it
-- in linked_document_id, until they reach its total. The one-credit unique index (0002) gives way to a
-- plain index for reading a document's credits. What keeps the credits within the total is the credit
-- path's lock on the original row (documents/credit-note.ts): credits of one document are written one
-- at a time, each after reading the ones before it.
DROP INDEX documents_one_credit;
CREATE INDEX documents_credits ON documents(linked_document_id) WHERE linked_document_id IS NOT NULL;
