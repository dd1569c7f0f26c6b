/** The closed lists of a hand-out, each once: the tables, the schemas and the types read them. Pure. */

/** What a print asks for: `auto` is the origin the first time, a copy afterwards. */
export const PRINT_KINDS = ['auto', 'origin', 'copy'] as const;
export type PrintKind = (typeof PRINT_KINDS)[number];

/** What was handed out: the one origin or a copy. */
export const PRINT_VARIANTS = ['origin', 'copy'] as const;
export type PrintVariant = (typeof PRINT_VARIANTS)[number];

export const PRINT_CHANNELS = ['print', 'share', 'email'] as const;
export type PrintChannel = (typeof PRINT_CHANNELS)[number];

/** A PDF's `X-Print-Variant`: a hand-out's variant, or `draft` (an unsigned watermarked preview). */
export const PDF_VARIANTS = [...PRINT_VARIANTS, 'draft'] as const;
