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
  // A minute never spans two days (the zone's offsets are whole hours): the formatting, measured on the
  // issue path, is done once a minute.
  const minute = Math.floor(at.getTime() / 60_000);
  if (minute !== lastDay.minute) lastDay = { minute, day: jerusalemDay.format(at) };
  return lastDay.day;
}
let lastDay = { minute: NaN, day: '' };

/** First day of the Asia/Jerusalem calendar month of `at`, as YYYY-MM-DD. */
export function israelMonthStart(at: Date): string {
  return israelDate(at).slice(0, 8) + '01';
}
