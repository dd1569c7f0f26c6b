-- The trigram index of the documents' texts (0024) holds issued documents only. A draft's texts were
-- indexed at its insert and again at its issue (an update that cannot be HOT writes every index anew):
-- two rounds of ~100 trigrams into the index's pending list per document. A search finds the drafts of
-- a business through documents_list_drafts, testing each (src/documents/list.ts textMatch), and the
-- issued ones through this index.
DROP INDEX documents_search;
CREATE INDEX documents_search ON documents USING gin (public.text_trigrams(public.documents_search_text(party, lines))) WHERE status = 'issued';
