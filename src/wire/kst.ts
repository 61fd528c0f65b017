/**
 * Korea Standard Time helpers. KST is UTC+9 with no daylight saving, so shifting the epoch by
 * nine hours and reading the UTC fields gives KST wall time whatever `TZ` says.
 */
export const KST_OFFSET_MS = 9 * 60 * 60 * 1000;

/** A KST wall-clock reading. */
export interface KstParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** 0 = Sunday ... 6 = Saturday, in KST. */
  weekday: number;
}

/** KST wall-clock fields of an instant. */
export function kstParts(date: Date): KstParts {
  const d = new Date(date.getTime() + KST_OFFSET_MS);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    weekday: d.getUTCDay(),
  };
}

const p2 = (n: number): string => (n < 10 ? '0' : '') + n;

/** YYYYMMDDHHMISS in KST (EdiDate, trDtm). */
export function kstTimestamp14(date: Date): string {
  const k = kstParts(date);
  return `${k.year}${p2(k.month)}${p2(k.day)}${p2(k.hour)}${p2(k.minute)}${p2(k.second)}`;
}

/** YYMMDDHHMISS in KST (AuthDate, the time part of a key-in TID). */
export function kstTimestamp12(date: Date): string {
  return kstTimestamp14(date).slice(2);
}

/** YYYYMMDD in KST (settlmntDt, dt). */
export function kstDate8(date: Date): string {
  return kstTimestamp14(date).slice(0, 8);
}

/** The instant of a KST wall-clock time. */
export function fromKst(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): Date {
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second) - KST_OFFSET_MS);
}

/** The number written by the ASCII digits s[a..b). */
function digitsAt(s: string, a: number, b: number): number {
  let v = 0;
  for (let i = a; i < b; i++) v = v * 10 + (s.charCodeAt(i) - 48);
  return v;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/**
 * Parses a KST timestamp of 8 (YYYYMMDD), 12 (YYMMDDHHMISS, 20YY assumed) or 14 digits into
 * an instant. Returns undefined when the text is not a valid calendar time (no 31 Feb, no
 * hour 24, no year before 100).
 */
export function parseKstTimestamp(text: string): Date | undefined {
  const n = text.length;
  if (n !== 8 && n !== 12 && n !== 14) return undefined;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return undefined;
  }
  const m = n === 12 ? 2 : 4; // where the month starts
  const y = n === 12 ? 2000 + digitsAt(text, 0, 2) : digitsAt(text, 0, 4);
  const mo = digitsAt(text, m, m + 2),
    d = digitsAt(text, m + 2, m + 4);
  const h = n === 8 ? 0 : digitsAt(text, m + 4, m + 6);
  const mi = n === 8 ? 0 : digitsAt(text, m + 6, m + 8);
  const se = n === 8 ? 0 : digitsAt(text, m + 8, m + 10);
  if (y < 100 || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || se > 59) return undefined;
  return new Date(Date.UTC(y, mo - 1, d, h, mi, se) - KST_OFFSET_MS);
}
