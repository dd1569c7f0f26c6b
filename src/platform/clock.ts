/** Injected everywhere time matters, so tests never wait for real time. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  private ms: number;
  constructor(start: Date | string = '2026-03-01T10:00:00.000Z') {
    this.ms = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.ms);
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  set(at: Date | string): void {
    this.ms = new Date(at).getTime();
  }
}

// The Israel calendar day lives in a pure module of its own (src/openfrmt reads it); most callers know it from here.
export { israelDate, israelMonthStart } from './israel-time.ts';
