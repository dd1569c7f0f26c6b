// What the ledger's route files share: the tag, the read scope, the integer schema and the CSV choice.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { prefersCsv } from '../platform/http/csv.ts';

export const tags = ['ledger'];
export const read = { scope: 'export' as const };
export const Int = Type.Integer();
/** CSV answers (docs/ledger.md "CSV answers"): the JSON's figures, one row per line or group, totals last. */
export const asCsv = (req: FastifyRequest) => prefersCsv(req.headers.accept);
