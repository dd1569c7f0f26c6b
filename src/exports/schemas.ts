/** The export run and file answers, shared with the VAT and backup routes. */
import { Type } from 'typebox';
import { IsoDate, IsoDateTime, Nullable } from '../platform/http/schemas.ts';
import { enumOf } from '../platform/http/enums.ts';
import { EXPORT_KINDS, EXPORT_STATUSES } from './lists.ts';

export const FileMetaSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  mime: Type.String(),
  size: Type.Integer(),
  sha256: Type.String(),
  createdAt: IsoDateTime,
});

export const ExportRunSchema = Type.Object({
  id: Type.String({ description: '`exr_…`' }),
  kind: enumOf(EXPORT_KINDS),
  from: IsoDate,
  to: IsoDate,
  status: enumOf(EXPORT_STATUSES),
  directory: Type.String({ description: 'OPENFRMT/<first 8 digits of the tax id>.<YY>/<MMDDhhmm> inside the zip' }),
  cutOffAt: Type.String({ description: 'Documents issued up to this instant are in the run (the fixed set).' }),
  recordCounts: Type.Unknown({ description: 'Records per type in BKMVDATA.TXT, and `total`.' }),
  fileId: Nullable(Type.String()),
  verification: Type.Unknown({ description: 'The files read back: record checks, per-doc-type totals against the database, source match.' }),
  report: Type.Unknown({ description: 'The printed outputs of spec §2.6 / §5.4: record counts per type, count and total per document type.' }),
  error: Nullable(Type.String()),
  createdAt: IsoDateTime,
  completedAt: Nullable(IsoDateTime),
});
