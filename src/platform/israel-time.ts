/**
 * An instant's Israel wall-clock date and time (Asia/Jerusalem): "today" of every counter and limit, a
 * document's issue date and time in the export, the OPENFRMT production directory. Pure, imports nothing,
 * so src/openfrmt may read it too.
 */

/** The zone every date of the books is read in; the console formats its own display in it too. */
export const ISRAEL_TIME_ZONE = 'Asia/Jerusalem';

const wallClock = new Intl.DateTimeFormat('en-GB', {
  timeZone: ISRAEL_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

const HOUR_MS = 3_600_000;

/** Israel's offset from UTC during each UTC hour asked so far, ms. */
const offsets = new Map<number, number>();

function offsetDuring(hour: number): number {
  let offset = offsets.get(hour);
  if (offset === undefined) {
    const p = Object.fromEntries(wallClock.formatToParts(new Date(hour * HOUR_MS)).map((x) => [x.type, x.value])) as Record<string, string>;
    offset = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute)) - hour * HOUR_MS;
    if (offsets.size > 100_000) offsets.clear();
    offsets.set(hour, offset);
  }
  return offset;
}

/** Israel wall-clock date and time of an instant: `YYYY-MM-DD`, `HH:MM`. */
export function israelDateTime(at: Date | string): { date: string; time: string } {
  const ms = typeof at === 'string' ? new Date(at).getTime() : at.getTime();
  // Israel's offset from UTC is whole hours and changes only at whole UTC hours (02:00 local in spring =
  // 00:00 UTC, 02:00 local in autumn = 23:00 UTC), so the zone is asked once per UTC hour: the formatting,
  // measured on the issue path and in the export, costs more than the rest of an issue's arithmetic.
  const local = new Date(ms + offsetDuring(Math.floor(ms / HOUR_MS))).toISOString();
  return { date: local.slice(0, 10), time: local.slice(11, 16) };
}

/** "Today" is the Asia/Jerusalem calendar day, as YYYY-MM-DD. */
export function israelDate(at: Date): string {
  return israelDateTime(at).date;
}

/** First day of the Asia/Jerusalem calendar month of `at`, as YYYY-MM-DD. */
export function israelMonthStart(at: Date): string {
  return israelDate(at).slice(0, 8) + '01';
}
