// Date-time and UUID inputs accepted as Pydantic accepts them, turned into one canonical form so
// that handlers never see the variants: datetimes become ISO 8601 UTC with milliseconds and `Z`
// (a value without an offset is taken as UTC), UUIDs become lower-case hyphenated.

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt _](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?([Zz]|[+-]\d{2}:?\d{2})?)?$/;
const UNIX_TIME = /^-?\d{1,16}(?:\.\d+)?$/;
// Seconds beyond this are milliseconds, as Pydantic decides.
const MS_THRESHOLD = 20_000_000_000;

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The instant a Pydantic `datetime` input denotes, or undefined when Pydantic would reject it. */
export function parseDateTime(text: string): Date | undefined {
  if (UNIX_TIME.test(text)) {
    const value = Number(text);
    const date = new Date(Math.abs(value) > MS_THRESHOLD ? value : value * 1000);
    return Number.isNaN(date.getTime()) ? undefined : date;
  }
  const match = DATE_TIME.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', zone = 'Z'] = match;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number) as number[];
  if (month! < 1 || month! > 12 || day! < 1 || day! > daysIn(year!, month!)) return undefined;
  if (hour! > 23 || minute! > 59 || second! > 59) return undefined;
  let offsetMinutes = 0;
  if (zone !== 'Z' && zone !== 'z') {
    const digits = zone.slice(1).replace(':', '');
    const zh = Number(digits.slice(0, 2));
    const zm = Number(digits.slice(2));
    if (zh > 23 || zm > 59) return undefined;
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (zh * 60 + zm);
  }
  const ms = Number(fraction.slice(0, 3).padEnd(3, '0'));
  const utc = Date.UTC(year!, month! - 1, day!, hour, minute, second, ms) - offsetMinutes * 60_000;
  const date = new Date(utc);
  // Date.UTC maps years 0-99 to 1900-1999; set the year explicitly.
  if (year! < 100) date.setUTCFullYear(date.getUTCFullYear() - 1900);
  // Python's datetime, and PostgreSQL, start at year 1.
  return date.getUTCFullYear() < 1 ? undefined : date;
}

/** Pydantic's `{error}` of `datetime_from_date_parsing` for a rejected input. */
export function dateTimeError(text: string): string {
  if (text.length < 10) return 'input is too short';
  const digits = (from: number, to: number) => /^\d+$/.test(text.slice(from, to));
  if (!digits(0, 4)) return 'invalid character in year';
  if (text[4] !== '-') return 'invalid date separator, expected `-`';
  if (!digits(5, 7)) return 'invalid character in month';
  if (text[7] !== '-') return 'invalid date separator, expected `-`';
  if (!digits(8, 10)) return 'invalid character in day';
  const month = Number(text.slice(5, 7));
  if (month < 1 || month > 12) return 'month value is outside expected range of 1-12';
  const day = Number(text.slice(8, 10));
  if (day < 1 || day > daysIn(Number(text.slice(0, 4)), month)) return 'day value is outside expected range';
  if (Number(text.slice(0, 4)) === 0) return 'year 0 is out of range';
  return 'unexpected extra characters at the end of the input';
}

const UUID_HYPHENATED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UUID_SIMPLE = /^[0-9a-f]{32}$/i;

/** Lower-case hyphenated form of a UUID Pydantic accepts (also simple and `urn:uuid:` forms). */
export function canonicalUuid(text: string): string | undefined {
  const body = text.toLowerCase().startsWith('urn:uuid:') ? text.slice(9) : text;
  if (UUID_HYPHENATED.test(body)) return body.toLowerCase();
  if (UUID_SIMPLE.test(body)) {
    const h = body.toLowerCase();
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }
  return undefined;
}
