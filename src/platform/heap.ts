/**
 * How far V8 lets the main heap grow past what survived its last full collection before it collects again: by half
 * (V8 picks a factor of its own, up to four times). Measured (docs/benchmarks.md, eighth session): the OPENFRMT
 * export of a million documents peaked at 241–319 MB of RSS without it, the main heap at 70–126 MB committed for
 * ~20–30 MB live, and at 224–231 MB with it (62–65 MB), in the same time; the issue bench's rate was unchanged (370 /
 * 341 against 357 / 317 documents/s). Set before the process allocates much: V8 reads it at every full collection.
 */
import v8 from 'node:v8';

v8.setFlagsFromString('--heap-growing-percent=50');
