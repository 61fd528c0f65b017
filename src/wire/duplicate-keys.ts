/**
 * Whether a JSON gateway answer names a field twice, given its text and what `JSON.parse` made
 * of it. JSON.parse keeps the last of two equal keys (parseKv the first), so such an answer can
 * be read two ways (a signed 3001 next to a 9999, say): its outcome is unknown whatever a parser
 * makes of it. The parser collapses every repeated key, escapes resolved (`"A"` and `"\u0041"`
 * are one key), so the text names more keys than the parsed value holds exactly when some
 * object, at any depth, names one twice.
 *
 * The text may be the answer's latin1 reading (one character per byte): neither EUC-KR nor
 * UTF-8 puts a byte below 0x80 inside a multi-byte character, so the quotes, backslashes and
 * colons seen there are the answer's own.
 */
export function hasDuplicateKeys(text: string, parsed: unknown): boolean {
  return keysWritten(text) !== keysHeld(parsed);
}

/** How many keys JSON text names: strings followed, after white space, by a colon. */
export function keysWritten(text: string): number {
  let keys = 0;
  const end = text.length;
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) !== 0x22 /* " */) continue;
    // To the closing quote; a backslash escapes the character after it.
    for (i++; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x22) break;
      if (c === 0x5c /* \ */) i++;
    }
    // JSON's white space: space, tab, LF, CR.
    let j = i + 1;
    for (let c = text.charCodeAt(j); c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d; c = text.charCodeAt(++j));
    if (text.charCodeAt(j) === 0x3a /* : */) keys++;
  }
  return keys;
}

/** How many keys a parsed JSON value holds, its nested objects' included. */
export function keysHeld(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let n = 0;
  if (Array.isArray(value)) {
    for (const item of value) n += keysHeld(item);
    return n;
  }
  // Own keys only: an enumerable member added to Object.prototype is none of the answer's.
  for (const key of Object.keys(value)) n += 1 + keysHeld((value as Record<string, unknown>)[key]);
  return n;
}
