/**
 * Every durable job (platform/jobs.ts): its name, the shape of its payload and its retry policy.
 * Domains provide the handlers (Domain.jobs in src/domain.ts); src/domains.ts checks that every job
 * here has exactly one. Adding a job starts here.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { growingRetries, type RetrySchedule } from '../retry-schedule.ts';

/** No payload: the job's ref id (a document id for every job below) says everything. */
const NoPayload = Type.Object({}, { additionalProperties: false });

export const JOBS = {
  'document.render': {
    description: 'Render, sign, store and link the PDFs of an issued document (src/prints).',
    payload: NoPayload,
    // Rendering fails for local reasons that pass quickly: 2 s doubling, capped at 10 min.
    retry: growingRetries({ maxAttempts: 20, firstMs: 2_000, factor: 2, capMs: 600_000 }),
  },
  'document.allocation': {
    description: 'Ask the tax authority for the allocation number of an issued document (src/allocation).',
    payload: NoPayload,
    // 10 s, 30 s, 90 s … capped at 1 h: the PDF of the document waits for the answer.
    retry: growingRetries({ maxAttempts: 10, firstMs: 10_000, factor: 3, capMs: 3_600_000 }),
  },
  'document.donation_report': {
    description: 'Report an issued 405 donation receipt (or, for its credit, the cancellation) to the digital donation system (src/donations).',
    payload: NoPayload,
    // As the allocation request: the PDF of the receipt waits for the report number.
    retry: growingRetries({ maxAttempts: 10, firstMs: 10_000, factor: 3, capMs: 3_600_000 }),
  },
} as const satisfies Record<string, { description: string; payload: TSchema; retry: RetrySchedule }>;

export type JobKind = keyof typeof JOBS;

export const JOB_KINDS: readonly JobKind[] = Object.keys(JOBS) as JobKind[];

export type JobPayload<K extends JobKind> = Static<(typeof JOBS)[K]['payload']>;
