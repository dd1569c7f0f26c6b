/** The events domain's public surface (ARCHITECTURE.md, "Boundaries"): the events API over the outbox. */
export { listDocumentEvents } from './list.ts';
