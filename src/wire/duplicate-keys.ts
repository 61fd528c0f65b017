import type { EdiType } from './response-body.js';

/**
 * Whether a gateway answer names a field twice. JSON.parse keeps the last
 * of two equal keys and parseKv the first, so such an answer can be read two ways (a signed
 * 3001 next to a 9999, say): its outcome is unknown whatever a parser makes of it. This is a
 * separate scan so it holds whatever parser reads the answer.
 *
 * Works on the answer's latin1 reading (one character per byte): keys are ASCII, and neither
 * EUC-KR nor UTF-8 puts a byte below 0x41 inside a multi-byte character, so the quotes,
 * braces, `&` and `=` seen here are the answer's own.
 */
export function hasDuplicateKeys(latin1: string, ediType: EdiType): boolean {
  return ediType === 'KV' ? kvHasDuplicate(latin1) : jsonHasDuplicate(latin1);
}

/** The KV reading of parseKv: a segment starting `Name=` opens a field, any other continues one. */
function kvHasDuplicate(text: string): boolean {
  const seen = new Set<string>();
  for (const segment of text.replace(/\r?\n$/, '').split('&')) {
    const eq = segment.indexOf('=');
    if (eq <= 0) continue;
    const key = segment.slice(0, eq);
    if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(key)) continue;
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}

/**
 * Scans JSON text for an object (at any depth) with two equal keys. Keys are compared as
 * written, after resolving escapes, so `"A"` and `"\u0041"` count as the same key. Text
 * that is not JSON is left to the parser to refuse.
 */
function jsonHasDuplicate(text: string): boolean {
  // One set of keys per open object; null for an open array.
  const stack: Array<Set<string> | null> = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const end = stringEnd(text, i);
      if (end < 0) return false;
      const top = stack[stack.length - 1];
      if (top && isKey(text, end + 1)) {
        const key = unescapeKey(text.slice(i + 1, end));
        if (key === undefined) return false;
        if (top.has(key)) return true;
        top.add(key);
      }
      i = end + 1;
      continue;
    }
    if (c === 0x7b /* { */) stack.push(new Set());
    else if (c === 0x5b /* [ */) stack.push(null);
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) stack.pop();
    i++;
  }
  return false;
}

/** Index of the quote closing the string that opens at `start`, or -1. */
function stringEnd(text: string, start: number): number {
  for (let i = text.indexOf('"', start + 1); i !== -1; i = text.indexOf('"', i + 1)) {
    // Escaped only after an odd run of backslashes (`\\"` ends the string).
    let b = i - 1;
    while (text.charCodeAt(b) === 0x5c /* \ */) b--;
    if ((i - 1 - b) % 2 === 0) return i;
  }
  return -1;
}

/** True when the next non-space character after a string is a colon: the string was a key. */
function isKey(text: string, from: number): boolean {
  let i = from;
  // JSON's white space: space, tab, LF, CR.
  for (let c = text.charCodeAt(i); c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d; c = text.charCodeAt(++i));
  return text.charCodeAt(i) === 0x3a /* : */;
}

/** A key's text with its JSON escapes resolved, or undefined when they are not valid JSON. */
function unescapeKey(raw: string): string | undefined {
  if (raw.indexOf('\\') === -1) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return undefined;
  }
}
