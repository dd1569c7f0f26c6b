import { describe, expect, it } from 'vitest';
import { canonicalDecimal, rateProblem, shiftDecimalLeft } from '../../src/exchange-rates/decimal.ts';
import { BoiFormatError, csvFields, daysBefore, latestOnOrBefore, parseBoiCsv, ratesUrl } from '../../src/exchange-rates/boi-protocol.ts';
import { lastSettledDay } from '../../src/exchange-rates/boi-cache.ts';
import { loadConfig, BOI_SDMX_URL, ConfigError } from '../../src/platform/config.ts';
import { CSV_HEADER } from './fake-boi.ts';

describe('decimal strings, exactly', () => {
  it('canonical form: no leading zeros, no trailing decimal zeros', () => {
    expect(canonicalDecimal('003.50')).toBe('3.5');
    expect(canonicalDecimal('0.0300')).toBe('0.03');
    expect(canonicalDecimal('12.000')).toBe('12');
    expect(canonicalDecimal('0')).toBe('0');
    expect(canonicalDecimal('1e3')).toBeNull();
    expect(canonicalDecimal('-1.5')).toBeNull();
    expect(canonicalDecimal('.5')).toBeNull();
  });

  it('dividing by a power of ten moves the point (JPY per 100, LBP per 10), no float on the way', () => {
    expect(shiftDecimalLeft('1.971', 2)).toBe('0.01971');
    expect(shiftDecimalLeft('0.0003', 1)).toBe('0.00003');
    expect(shiftDecimalLeft('2.6603', 2)).toBe('0.026603');
    expect(shiftDecimalLeft('123.4', 1)).toBe('12.34');
    expect(shiftDecimalLeft('3.073', 0)).toBe('3.073');
    expect(shiftDecimalLeft('100', 2)).toBe('1');
    // 0.1 + 0.2-style float noise would show here: 1.1 / 100 in binary is 0.011000000000000001.
    expect(shiftDecimalLeft('1.1', 2)).toBe('0.011');
    expect(shiftDecimalLeft('x', 2)).toBeNull();
  });

  it('a rate is positive, at most 12 integer digits and 10 decimals', () => {
    expect(rateProblem('3.7125')).toBeNull();
    expect(rateProblem('0.0000000001')).toBeNull();
    expect(rateProblem('999999999999.9999999999')).toBeNull();
    expect(rateProblem('0')).toMatch(/more than zero/);
    expect(rateProblem('0.000')).toMatch(/more than zero/);
    expect(rateProblem('1234567890123')).toMatch(/12 integer digits/);
    expect(rateProblem('1.12345678901')).toMatch(/10 decimal/);
    expect(rateProblem('3,7')).toMatch(/decimal number/);
    expect(rateProblem('')).toMatch(/decimal number/);
  });
});

describe('the Bank of Israel CSV', () => {
  // Rows as the Bank answered them (recorded 2026-03-20): the yen per 100, the Lebanese pound per 10.
  const REAL = [
    CSV_HEADER,
    'RER_USD_ILS,D,USD,ILS,ILS,OF00,BOI_MRKT,V,F,Y,0,,2026-03-02,3.073,YP',
    'RER_USD_ILS,D,USD,ILS,ILS,OF00,BOI_MRKT,V,F,Y,0,,2026-03-05,3.072,YP',
    'RER_JPY_ILS,D,JPY,ILS,ILS,OF00,BOI_MRKT,V,F,Y,2,,2026-03-02,1.971,YP',
    'RER_LBP_ILS,D,LBP,ILS,ILS,OF00,BOI_MRKT,V,F,Y,1,,2026-03-02,0.0003,YP',
  ].join('\r\n');

  it('reads rows by column name and normalises to one unit', () => {
    expect(parseBoiCsv(REAL)).toEqual([
      { currency: 'USD', date: '2026-03-02', rate: '3.073' },
      { currency: 'JPY', date: '2026-03-02', rate: '0.01971' },
      { currency: 'LBP', date: '2026-03-02', rate: '0.00003' },
      { currency: 'USD', date: '2026-03-05', rate: '3.072' },
    ]);
  });

  it('survives reordered and quoted columns, a BOM, and a row whose value is not out yet', () => {
    const text = '\uFEFFTIME_PERIOD,COMMENTS,OBS_VALUE,BASE_CURRENCY\n2026-03-06,"late, revised",3.0770,USD\n2026-03-09,,,USD\n';
    expect(parseBoiCsv(text)).toEqual([{ currency: 'USD', date: '2026-03-06', rate: '3.077' }]);
    expect(csvFields('a,"b ""quoted"", c",d')).toEqual(['a', 'b "quoted", c', 'd']);
  });

  it('refuses an answer it cannot read rather than inventing a rate', () => {
    expect(() => parseBoiCsv('<html>error</html>')).toThrow(BoiFormatError);
    expect(() => parseBoiCsv(`${CSV_HEADER}\nRER_USD_ILS,D,USD,ILS,ILS,OF00,BOI_MRKT,V,F,Y,0,,2026-03-02,n/a,YP`)).toThrow(/not a decimal/);
    expect(() => parseBoiCsv(`${CSV_HEADER}\nRER_USD_ILS,D,USD,ILS,ILS,OF00,BOI_MRKT,V,F,Y,x,,2026-03-02,3.07,YP`)).toThrow(/UNIT_MULT/);
    expect(() => parseBoiCsv(`${CSV_HEADER}\nRER_USD_ILS,D,USD,ILS,ILS,OF00,BOI_MRKT,V,F,Y,0,,2026-03,3.07,YP`)).toThrow(/not a day/);
    expect(parseBoiCsv('')).toEqual([]);
    expect(parseBoiCsv(CSV_HEADER)).toEqual([]);
  });

  it('the rate of a day is the last one published on or before it', () => {
    const obs = parseBoiCsv(REAL).filter((o) => o.currency === 'USD');
    expect(latestOnOrBefore(obs, '2026-03-04')).toEqual({ currency: 'USD', date: '2026-03-02', rate: '3.073' });
    expect(latestOnOrBefore(obs, '2026-03-05')?.date).toBe('2026-03-05');
    expect(latestOnOrBefore(obs, '2026-03-01')).toBeNull();
  });

  it('the URL: the EXR dataflow, representative rates (OF00), the period and CSV', () => {
    expect(ratesUrl(BOI_SDMX_URL, '2026-02-22', '2026-03-08')).toBe(
      'https://edge.boi.gov.il/FusionEdgeServer/sdmx/v2/data/dataflow/BOI.STATISTICS/EXR/1.0/?c%5BDATA_TYPE%5D=OF00&startperiod=2026-02-22&endperiod=2026-03-08&format=csv',
    );
    expect(daysBefore('2026-03-01', 14)).toBe('2026-02-15');
  });
});

describe('which cached days are final', () => {
  it('a past day is final; today only once its own rate is out', () => {
    expect(lastSettledDay('2026-03-08', { rate: '3.077', date: '2026-03-06' }, '2026-03-20')).toBe('2026-03-08');
    expect(lastSettledDay('2026-03-20', { rate: '3.1', date: '2026-03-20' }, '2026-03-20')).toBe('2026-03-20');
    expect(lastSettledDay('2026-03-20', { rate: '3.099', date: '2026-03-19' }, '2026-03-20')).toBe('2026-03-19');
  });
});

describe('EXCHANGE_RATES_URL', () => {
  it('the real service by default outside tests, none in tests, `off` disables it', () => {
    expect(loadConfig({ PINKAS_ENV: 'development' }).exchangeRates.baseUrl).toBe(BOI_SDMX_URL);
    expect(loadConfig({ PINKAS_ENV: 'production' }).exchangeRates.baseUrl).toBe(BOI_SDMX_URL);
    expect(loadConfig({ PINKAS_ENV: 'test' }).exchangeRates.baseUrl).toBeNull();
    expect(loadConfig({ PINKAS_ENV: 'production', EXCHANGE_RATES_URL: 'off' }).exchangeRates.baseUrl).toBeNull();
    expect(loadConfig({ PINKAS_ENV: 'test', EXCHANGE_RATES_URL: 'http://127.0.0.1:9/' }).exchangeRates).toEqual({
      baseUrl: 'http://127.0.0.1:9',
      timeoutMs: 10_000,
    });
    expect(() => loadConfig({ EXCHANGE_RATES_URL: 'ftp://x' })).toThrow(ConfigError);
    expect(() => loadConfig({ EXCHANGE_RATES_TIMEOUT_MS: '1' })).toThrow(/EXCHANGE_RATES_TIMEOUT_MS/);
  });
});
