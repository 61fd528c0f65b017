/**
 * Korea Standard Time helpers. KST is UTC+9 with no daylight saving, so shifting the epoch by
 * nine hours and reading the UTC fields gives KST wall time whatever `TZ` says.
 */
export const KST_OFFSET_MS = 9 * 60 * 60 * 1000;

/** A KST wall-clock reading. */
export interface KstParts {
  year: number; month: number; day: number; hour: number; minute: number; second: number;
  /** 0 = Sunday ... 6 = Saturday, in KST. */
  weekday: number;
}

/** KST wall-clock fields of an instant. */
export function kstParts(date: Date): KstParts {
  const d = new Date(date.getTime() + KST_OFFSET_MS);
  return {
    year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(),
    hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds(), weekday: d.getUTCDay(),
  };
}

const p2 = (n: number): string => String(n).padStart(2, '0');

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

/**
 * Parses a KST timestamp of 8 (YYYYMMDD), 12 (YYMMDDHHMISS, 20YY assumed) or 14 digits into
 * an instant. Returns undefined when the text is not a valid calendar time.
 */
export function parseKstTimestamp(text: string): Date | undefined {
  let s = text;
  if (/^\d{12}$/.test(s)) s = '20' + s;
  else if (/^\d{8}$/.test(s)) s += '000000';
  if (!/^\d{14}$/.test(s)) return undefined;
  const y = digitsAt(s, 0, 4), mo = digitsAt(s, 4, 6), d = digitsAt(s, 6, 8);
  const h = digitsAt(s, 8, 10), mi = digitsAt(s, 10, 12), se = digitsAt(s, 12, 14);
  // The KST wall time read back must be the one given (no 31 Feb, no hour 24): the same test
  // as fromKst + kstParts, on one Date instead of two.
  const wall = new Date(Date.UTC(y, mo - 1, d, h, mi, se));
  if (wall.getUTCFullYear() !== y || wall.getUTCMonth() + 1 !== mo || wall.getUTCDate() !== d ||
      wall.getUTCHours() !== h || wall.getUTCMinutes() !== mi || wall.getUTCSeconds() !== se) {
    return undefined;
  }
  return new Date(wall.getTime() - KST_OFFSET_MS);
}
