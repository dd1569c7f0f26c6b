import { describe, expect, it } from 'vitest';
import { israelDate, israelDateTime, israelMonthStart } from '../../src/platform/israel-time.ts';
import { productionDirectory } from '../../src/openfrmt/assemble.ts';

const at = (iso: string) => israelDateTime(new Date(iso));

/** What the zone database says, formatted field by field (no cache): the reference the helper is held to. */
const zoneFormat = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Asia/Jerusalem',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});
function zoneSays(d: Date): { date: string; time: string } {
  const p = Object.fromEntries(zoneFormat.formatToParts(d).map((x) => [x.type, x.value]));
  return { date: `${p.year}-${p.month}-${p.day}`, time: `${p.hour}:${p.minute}` };
}

describe('Israel wall clock', () => {
  it('winter is UTC+2: the day turns at 22:00 UTC', () => {
    expect(at('2026-01-31T21:59:59.999Z')).toEqual({ date: '2026-01-31', time: '23:59' });
    expect(at('2026-01-31T22:00:00.000Z')).toEqual({ date: '2026-02-01', time: '00:00' });
    expect(at('2026-01-31T22:15:00.000Z')).toEqual({ date: '2026-02-01', time: '00:15' });
  });

  it('summer is UTC+3: the day turns at 21:00 UTC', () => {
    expect(at('2026-07-01T20:59:00.000Z')).toEqual({ date: '2026-07-01', time: '23:59' });
    expect(at('2026-07-01T21:00:00.000Z')).toEqual({ date: '2026-07-02', time: '00:00' });
  });

  it('spring forward (Friday 2026-03-27, 02:00 → 03:00 local at 00:00 UTC)', () => {
    expect(at('2026-03-26T23:59:00.000Z')).toEqual({ date: '2026-03-27', time: '01:59' });
    expect(at('2026-03-27T00:00:00.000Z')).toEqual({ date: '2026-03-27', time: '03:00' });
    expect(at('2026-03-27T00:30:00.000Z')).toEqual({ date: '2026-03-27', time: '03:30' });
    // The day before the change, the turn of the day is still at 22:00 UTC; the day after, at 21:00.
    expect(israelDate(new Date('2026-03-26T21:59:00.000Z'))).toBe('2026-03-26');
    expect(israelDate(new Date('2026-03-27T21:00:00.000Z'))).toBe('2026-03-28');
  });

  it('fall back (Sunday 2026-10-25, 02:00 → 01:00 local at 23:00 UTC on the 24th): 01:xx happens twice', () => {
    expect(at('2026-10-24T21:59:00.000Z')).toEqual({ date: '2026-10-25', time: '00:59' });
    expect(at('2026-10-24T22:30:00.000Z')).toEqual({ date: '2026-10-25', time: '01:30' });
    expect(at('2026-10-24T22:59:00.000Z')).toEqual({ date: '2026-10-25', time: '01:59' });
    expect(at('2026-10-24T23:00:00.000Z')).toEqual({ date: '2026-10-25', time: '01:00' });
    expect(at('2026-10-24T23:30:00.000Z')).toEqual({ date: '2026-10-25', time: '01:30' });
    expect(israelDate(new Date('2026-10-25T21:59:00.000Z'))).toBe('2026-10-25');
    expect(israelDate(new Date('2026-10-25T22:00:00.000Z'))).toBe('2026-10-26');
  });

  it('reads an ISO instant as the Date it names, and a year ends in Israel before it ends in UTC', () => {
    expect(israelDateTime('2025-12-31T22:30:00Z')).toEqual({ date: '2026-01-01', time: '00:30' });
    expect(israelDateTime('2025-12-31T21:59:00+00:00')).toEqual({ date: '2025-12-31', time: '23:59' });
    expect(israelDateTime('2024-02-29T12:00:00+02:00')).toEqual({ date: '2024-02-29', time: '12:00' });
  });

  it('the month starts on its first Israel day', () => {
    expect(israelMonthStart(new Date('2026-02-28T21:59:00.000Z'))).toBe('2026-02-01');
    expect(israelMonthStart(new Date('2026-02-28T22:00:00.000Z'))).toBe('2026-03-01');
    expect(israelMonthStart(new Date('2026-10-31T21:59:00.000Z'))).toBe('2026-10-01');
    expect(israelMonthStart(new Date('2026-10-31T22:00:00.000Z'))).toBe('2026-11-01');
  });

  it('agrees with the zone database minute by minute around every change of 2012–2030 and at random instants', () => {
    const instants: number[] = [];
    for (let year = 2012; year <= 2030; year++) {
      for (const month of [2, 3, 8, 9, 10]) {
        // Every half hour of the month's last ten days: the changes of these years all fall there.
        const start = Date.UTC(year, month, 20);
        for (let t = start; t < Date.UTC(year, month + 1, 1); t += 30 * 60_000) instants.push(t);
      }
    }
    let seed = 7;
    for (let i = 0; i < 2_000; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      instants.push(Date.UTC(1990, 0, 1) + (seed / 2 ** 31) * 60 * 365 * 86_400_000);
    }
    const wrong = instants
      .map((t) => new Date(Math.floor(t / 60_000) * 60_000))
      .filter((d) => JSON.stringify(israelDateTime(d)) !== JSON.stringify(zoneSays(d)));
    expect(wrong.map((d) => d.toISOString())).toEqual([]);
  });

  it('names the OPENFRMT production directory from the same wall clock', () => {
    expect(productionDirectory('2233445', new Date('2008-09-11T07:25:00Z')).dir).toBe('OPENFRMT/00223344.08/09111025');
    expect(productionDirectory('123456782', new Date('2026-03-27T00:05:00Z'))).toEqual({
      dir: 'OPENFRMT/12345678.26/03270305',
      date: '2026-03-27',
      time: '03:05',
    });
    expect(productionDirectory('123456782', new Date('2026-10-24T23:05:00Z')).dir).toBe('OPENFRMT/12345678.26/10250105');
  });
});
