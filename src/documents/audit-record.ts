/**
 * What a document's audit rows record of it. The document's row holds its content (an issued one
 * frozen by the database); the audit row commits to it: every field as it is, except the large
 * ones, recorded by the SHA-256 of their canonical JSON. The row stays ~1 KB instead of ~3 KB
 * (below PostgreSQL's TOAST threshold, so it is neither compressed nor stored apart), and
 * `audit verify` can still name the field of an issued document that changed.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../platform/canonical-json.ts';
import { plain } from '../platform/audit.ts';

/** The fields recorded by digest: the party, the lines, the payments and the integrator's metadata. */
const DIGESTED = ['party', 'lines', 'payments', 'metadata'] as const;

const digest = (v: unknown) =>
  createHash('sha256')
    .update(canonicalJson(v ?? null))
    .digest('hex');

/** The audit record of a Document JSON: `{...the other fields, sha256: {party, lines, payments, metadata}}`. */
export function documentAuditRecord(view: object): Record<string, unknown> {
  const out = { ...(plain(view) as Record<string, unknown>) };
  const sha256: Record<string, string> = {};
  for (const k of DIGESTED) {
    sha256[k] = digest(out[k]);
    delete out[k];
  }
  return { ...out, sha256 };
}

/** A recorded `after` in the record's form; rows written before the record existed hold the whole Document JSON. */
export function asAuditRecord(recorded: Record<string, unknown>): Record<string, unknown> {
  return typeof recorded.sha256 === 'object' && recorded.sha256 !== null ? recorded : documentAuditRecord(recorded);
}

/** The canonical JSON of field `k` in a record: a digested field's digest, any other its value. */
export function recordedField(record: Record<string, unknown>, k: string): string {
  const digests = record.sha256 as Record<string, unknown>;
  return canonicalJson((DIGESTED as readonly string[]).includes(k) ? (digests[k] ?? null) : (record[k] ?? null));
}
