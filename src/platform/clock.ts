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

const jerusalemDay = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Asia/Jerusalem',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});

/** "Today" is the Asia/Jerusalem calendar day, as YYYY-MM-DD. */
export function israelDate(at: Date): string {
  return jerusalemDay.format(at);
}

/** First day of the Asia/Jerusalem calendar month of `at`, as YYYY-MM-DD. */
export function israelMonthStart(at: Date): string {
  return israelDate(at).slice(0, 8) + '01';
}
