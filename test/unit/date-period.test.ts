import { describe, expect, it } from 'vitest';
import { parsePeriod, periodDays } from '../../src/plan/date-period.js';
import { parseTimeZone, UTC, type TimeZone } from '../../src/request/time-zone.js';

/** The period parser and the time zones it reads periods in: pure, no database. */

const iso = (ms: number): string => new Date(ms).toISOString();
const range = (value: unknown, zone: TimeZone = UTC): [string, string] | undefined => {
  const period = parsePeriod(value, zone);
  return period === undefined ? undefined : [iso(period.start), iso(period.end)];
};
const zone = (text: string): TimeZone => parseTimeZone(text)!;

describe('parsePeriod in UTC', () => {
  const cases: [string, unknown, [string, string]][] = [
    ['a year', '2026', ['2026-01-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z']],
    ['a quarter', '2026Q1', ['2026-01-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z']],
    ['the last quarter', '2026Q4', ['2026-10-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z']],
    ['ISO week 1 starting in the year before', '2026W01', ['2025-12-29T00:00:00.000Z', '2026-01-05T00:00:00.000Z']],
    ['ISO week 5', '2026W05', ['2026-01-26T00:00:00.000Z', '2026-02-02T00:00:00.000Z']],
    ['ISO week 53 of a long year', '2026W53', ['2026-12-28T00:00:00.000Z', '2027-01-04T00:00:00.000Z']],
    ['ISO week with a hyphen', '2020-W53', ['2020-12-28T00:00:00.000Z', '2021-01-04T00:00:00.000Z']],
    ['a month', '2026-02', ['2026-02-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z']],
    ['December', '2026-12', ['2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z']],
    ['a day', '2024-02-29', ['2024-02-29T00:00:00.000Z', '2024-03-01T00:00:00.000Z']],
    ['an hour', '2026-01-15T10', ['2026-01-15T10:00:00.000Z', '2026-01-15T11:00:00.000Z']],
    ['a minute', '2026-01-15T10:30', ['2026-01-15T10:30:00.000Z', '2026-01-15T10:31:00.000Z']],
    ['a second', '2026-01-15T10:30:15', ['2026-01-15T10:30:15.000Z', '2026-01-15T10:30:16.000Z']],
    ['an instant', '2026-01-15T10:30:15.250Z', ['2026-01-15T10:30:15.250Z', '2026-01-15T10:30:15.251Z']],
    ['an instant with an offset', '2026-01-15T10:30:15.250+02:00', ['2026-01-15T08:30:15.250Z', '2026-01-15T08:30:15.251Z']],
    ['a minute with an offset', '2026-01-15T10:30-05:00', ['2026-01-15T15:30:00.000Z', '2026-01-15T15:31:00.000Z']],
    ['[from, to] spans from the start of one to the end of the other', ['2026-01', '2026Q2'], ['2026-01-01T00:00:00.000Z', '2026-07-01T00:00:00.000Z']],
    ['[from, to] of days', ['2026-01-01', '2026-01-01'], ['2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z']],
    ['surrounding spaces', ' 2026 ', ['2026-01-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z']],
  ];
  it.each(cases)('%s', (_label, value, want) => {
    expect(range(value)).toEqual(want);
  });

  it.each([
    '2026Q5', '2026Q0', '2025W53', '2026W00', '2026W54', '2026-13', '2026-00', '2026-02-29', '2026-01-15T24', '2026-01-15T10:60',
    '2026-01-15T10:30:61', '0999', '99999', '26', '2026-1', 'today', '', '2026-01-15T10:30+24:00', '2026+25:00', '[2026,2027', '[2026;2027]', '{2026,2027}', '2026w00', '2026w54', '2026W',
  ])('refuses %j', (text) => {
    expect(parsePeriod(text, UTC)).toBeUndefined();
  });

  it('refuses values that are neither text nor a pair of texts', () => {
    for (const value of [2026, null, ['2026'], ['2026', '2027', '2028'], ['2026', '2027', '[]', 'Mars/Olympus'], ['2026', '2027', '[]', '+08:00', 'x'], ['2026', 5], { 0: '2026' }]) expect(parsePeriod(value, UTC)).toBeUndefined();
  });
});

describe('parsePeriod in a zone', () => {
  it('reads wall-clock periods in a fixed offset', () => {
    expect(range('2026-01-15', zone('+05:30'))).toEqual(['2026-01-14T18:30:00.000Z', '2026-01-15T18:30:00.000Z']);
    expect(range('2026', zone('-08:00'))).toEqual(['2026-01-01T08:00:00.000Z', '2027-01-01T08:00:00.000Z']);
  });

  it('reads wall-clock periods in an IANA zone, across daylight saving time', () => {
    const berlin = zone('Europe/Berlin');
    expect(range('2026-01', berlin)).toEqual(['2025-12-31T23:00:00.000Z', '2026-01-31T23:00:00.000Z']);
    // March 2026 starts in CET (+01:00) and ends in CEST (+02:00).
    expect(range('2026-03', berlin)).toEqual(['2026-02-28T23:00:00.000Z', '2026-03-31T22:00:00.000Z']);
    // 2026-03-29 has 23 hours in Berlin.
    expect(range('2026-03-29', berlin)).toEqual(['2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z']);
    // 02:30 does not exist that night: it lands after the gap.
    expect(range('2026-03-29T02', berlin)).toEqual(['2026-03-29T01:00:00.000Z', '2026-03-29T01:00:00.000Z']);
    expect(range('2026-10-25', berlin)).toEqual(['2026-10-24T22:00:00.000Z', '2026-10-25T23:00:00.000Z']);
    expect(range('2026-07-01T12', zone('America/New_York'))).toEqual(['2026-07-01T16:00:00.000Z', '2026-07-01T17:00:00.000Z']);
  });

  it('keeps an explicit offset over the zone', () => {
    expect(range('2026-01-15T10:00:00Z', zone('Asia/Tokyo'))).toEqual(['2026-01-15T10:00:00.000Z', '2026-01-15T10:00:01.000Z']);
  });
});

/** NocoBase packages/core/utils/src/__tests__/parse-date.test.ts: the value forms its date operators take. */
describe('parsePeriod reads NocoBase\'s forms (parse-date.test.ts)', () => {
  const plus8 = zone('+08:00');
  const cases: [string, unknown, TimeZone, [string, string]][] = [
    ['should parse year: a zone suffix', '2023+08:00', UTC, ['2022-12-31T16:00:00.000Z', '2023-12-31T16:00:00.000Z']],
    ['should parse year: the request zone', '2023', plus8, ['2022-12-31T16:00:00.000Z', '2023-12-31T16:00:00.000Z']],
    ['should parse quarter', '2023Q2+08:00', UTC, ['2023-03-31T16:00:00.000Z', '2023-06-30T16:00:00.000Z']],
    ['should parse iso week', '2024W16+08:00', UTC, ['2024-04-14T16:00:00.000Z', '2024-04-21T16:00:00.000Z']],
    ['should parse week (Sunday weeks)', '2023w01', UTC, ['2023-01-01T00:00:00.000Z', '2023-01-08T00:00:00.000Z']],
    ['should parse week (Sunday weeks) with a zone', '2024w16+08:00', UTC, ['2024-04-13T16:00:00.000Z', '2024-04-20T16:00:00.000Z']],
    ['should parse week (Sunday weeks), 2024w16', '2024w16', UTC, ['2024-04-14T00:00:00.000Z', '2024-04-21T00:00:00.000Z']],
    ['should parse month', '2023-03+08:00', UTC, ['2023-02-28T16:00:00.000Z', '2023-03-31T16:00:00.000Z']],
    ['should parse day', '2023-01-12+08:00', UTC, ['2023-01-11T16:00:00.000Z', '2023-01-12T16:00:00.000Z']],
    ['should parse hour', '2023-01-12 12+08:00', UTC, ['2023-01-12T04:00:00.000Z', '2023-01-12T05:00:00.000Z']],
    ['should parse minute', '2023-01-12T12:23+08:00', UTC, ['2023-01-12T04:23:00.000Z', '2023-01-12T04:24:00.000Z']],
    ['should parse second', '2023-01-12 12:23:59', plus8, ['2023-01-12T04:23:59.000Z', '2023-01-12T04:24:00.000Z']],
    ['should parse millisecond', '2023-01-12T12:23:59.326+08:00', UTC, ['2023-01-12T04:23:59.326Z', '2023-01-12T04:23:59.327Z']],
    ['should parse utc: Z wins over a zone suffix', '2023-01-12T12:23:59.326Z+08:00', UTC, ['2023-01-12T12:23:59.326Z', '2023-01-12T12:23:59.327Z']],
    ['parse date between: [2023,2024]', '[2023,2024]', UTC, ['2023-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z']],
    ['parse date between: (2023,2024]', '(2023,2024]', UTC, ['2024-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z']],
    ['parse date between: [2023,2024)', '[2023,2024)', UTC, ['2023-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z']],
    ['parse date between: (2023,2026)', '(2023,2026)', UTC, ['2024-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z']],
    ['parse date between: an array with brackets', ['2023', '2024', '(]'], UTC, ['2024-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z']],
    ['parse date between: an array with brackets and a zone', ['2023', '2024', '[)', '+08:00'], UTC, ['2022-12-31T16:00:00.000Z', '2023-12-31T16:00:00.000Z']],
    ['parse date between: a range with a zone', '(2023,2026)+08:00', UTC, ['2023-12-31T16:00:00.000Z', '2025-12-31T16:00:00.000Z']],
    ['parse date between: days', '[2023-01-12,2023-09-12]', UTC, ['2023-01-12T00:00:00.000Z', '2023-09-13T00:00:00.000Z']],
    ['parse date between: days, open at both ends, with a zone', '(2023-01-12,2023-09-12)+08:00', UTC, ['2023-01-12T16:00:00.000Z', '2023-09-11T16:00:00.000Z']],
    ['parse date between: instants', '[2023-01-12T12:23:59.326Z,2023-01-12T12:24:59.326Z)', UTC, ['2023-01-12T12:23:59.326Z', '2023-01-12T12:24:59.326Z']],
  ];
  it.each(cases)('%s', (_label, value, z, want) => {
    expect(range(value, z)).toEqual(want);
  });

  it('returns the zone the value named, for the days of dateOnly fields', () => {
    expect(parsePeriod('2026-01-15+08:00', UTC)?.zone).toEqual(plus8);
    expect(periodDays(parsePeriod('2026-01-15T20:00:00Z+08:00', UTC)!, plus8)).toEqual({ start: '2026-01-16', end: '2026-01-17' });
  });
});

describe('periodDays (dateOnly fields)', () => {
  const days = (value: unknown, z: TimeZone = UTC) => periodDays(parsePeriod(value, z)!, z);
  it('turns periods into day ranges [start, end)', () => {
    expect(days('2026-01')).toEqual({ start: '2026-01-01', end: '2026-02-01' });
    expect(days('2026W05')).toEqual({ start: '2026-01-26', end: '2026-02-02' });
    expect(days('2026-01-15T10:30')).toEqual({ start: '2026-01-15', end: '2026-01-16' });
    expect(days('2026-01-15', zone('Pacific/Kiritimati'))).toEqual({ start: '2026-01-15', end: '2026-01-16' });
  });
  it('takes the day an instant falls on in the zone', () => {
    expect(days('2026-01-15T23:30:00Z')).toEqual({ start: '2026-01-15', end: '2026-01-16' });
    expect(days('2026-01-15T23:30:00Z', zone('+02:00'))).toEqual({ start: '2026-01-16', end: '2026-01-17' });
  });
  it('leaves a bound open beyond year 9999', () => {
    expect(days('9999')).toEqual({ start: '9999-01-01', end: undefined });
  });
});

describe('parseTimeZone', () => {
  it('reads offsets, UTC and IANA names', () => {
    expect(parseTimeZone('+05:30')).toEqual({ kind: 'offset', minutes: 330 });
    expect(parseTimeZone('-0800')).toEqual({ kind: 'offset', minutes: -480 });
    expect(parseTimeZone('UTC')).toEqual(UTC);
    expect(parseTimeZone('Z')).toEqual(UTC);
    expect(parseTimeZone('Europe/Berlin')).toEqual({ kind: 'iana', name: 'Europe/Berlin' });
  });
  it.each(['+25:00', '+05:60', 'Mars/Olympus', '', '5', 'Europe/Berlin; drop', '../etc'])('refuses %j', (text) => {
    expect(parseTimeZone(text)).toBeUndefined();
  });
});
