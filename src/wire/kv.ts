import { type Charset, decodeBytes, encodeText } from './charset.js';
import { emptyFields, type FormFields } from './form-codec.js';
import { MID_PATTERN } from './keyin-fields.js';
import { ownCopy } from '../own-copy.js';

/**
 * Answer fields whose value is the shop's own text, echoed unescaped (gateway-interface.md:
 * GoodsName, the buyer fields, MallReserved "returned as sent"): the only values a `&Key=`
 * segment may belong to. Every other value is the gateway's own.
 */
export const KV_ECHOED_FIELDS: ReadonlySet<string> = new Set([
  'GoodsName',
  'MallReserved',
  'BuyerName',
  'BuyerEmail',
  'BuyerTel',
]);

/** One `&`-separated piece of a KV answer: `key` when it starts `Name=`. */
interface Segment {
  text: string;
  key: string | undefined;
}

/** How a KV answer reads: its fields, or why it cannot be read one way only. */
export type KvReading = { fields: FormFields; ambiguous?: undefined } | { fields?: undefined; ambiguous: string };

/**
 * Gateway fields of a fixed shape (gateway-interface.md: TID 30 characters, MID of the spec's
 * shape, amounts and AuthDate digits, a 4-character code, a SHA-256 Signature). Of two readings
 * that take equally few segments as shop text, one giving such a field another shape is not
 * what the gateway wrote.
 */
const SHAPES: Readonly<Record<string, RegExp>> = {
  TID: /^[A-Za-z0-9]{30}$/,
  MID: MID_PATTERN,
  Amt: /^\d{1,12}$/,
  CancelAmt: /^\d{1,12}$/,
  RemainAmt: /^\d{1,12}$/,
  AuthDate: /^\d{12}$/,
  ResultCode: /^[0-9A-Z]{4}$/,
  Signature: /^[0-9a-fA-F]{64}$/,
};

/** True when every field of a fixed shape has that shape. */
function wellShaped(fields: FormFields): boolean {
  return Object.entries(SHAPES).every(([name, shape]) => !Object.hasOwn(fields, name) || shape.test(fields[name]!));
}

/** More choices than this among repeated keys is not an answer the gateway writes: unknown. */
const MAX_READINGS = 256;

const KEY = /^[A-Za-z][A-Za-z0-9_]*$/;

function segmentsOf(text: string): Segment[] {
  return text
    .replace(/\r?\n$/, '')
    .split('&')
    .map((segment) => {
      const eq = segment.indexOf('=');
      const key = eq > 0 && KEY.test(segment.slice(0, eq)) ? segment.slice(0, eq) : undefined;
      return { text: segment, key };
    });
}

/**
 * The fields of one reading: a key segment not in `absorbed` opens a field (the first of a key
 * wins), and every other segment continues the value before it (`&` put back).
 */
function assemble(segments: readonly Segment[], absorbed: ReadonlySet<number>): FormFields {
  const fields = emptyFields();
  let lastKey: string | undefined;
  for (let i = 0; i < segments.length; i++) {
    const { text, key } = segments[i]!;
    if (key === undefined || absorbed.has(i)) {
      if (lastKey !== undefined) fields[lastKey] += `&${text}`;
      continue;
    }
    if (Object.hasOwn(fields, key)) {
      lastKey = undefined;
      continue;
    }
    fields[key] = text.slice(key.length + 1);
    lastKey = key;
  }
  // A value cut from the answer would keep all of it alive with whatever keeps the value (a
  // ledger record, for days): a BID or a receipt identity the record leaves out included.
  for (const name in fields) fields[name] = ownCopy(fields[name]!);
  return fields;
}

/**
 * The segments a choice of genuine occurrences (one per repeated key) makes shop text, or
 * undefined when the choice is impossible. A segment is shop text only inside the value of an
 * echoed field: going back from it, past continuations and other shop text, the first field it
 * meets must be an echoed one. A field of a key named once that stands in the way is taken as
 * shop text too (the fewest such are chosen overall); a chosen genuine occurrence cannot be.
 */
function absorbedBy(
  segments: readonly Segment[],
  repeated: ReadonlyMap<string, number[]>,
  genuine: ReadonlySet<number>,
): Set<number> | undefined {
  const absorbed = new Set<number>();
  for (const indexes of repeated.values()) for (const i of indexes) if (!genuine.has(i)) absorbed.add(i);
  for (const i of [...absorbed].sort((a, b) => a - b)) {
    let j = i - 1;
    for (; j >= 0; j--) {
      const key = segments[j]!.key;
      if (key === undefined) continue;
      if (absorbed.has(j)) break; // already shown to lie inside an echoed value
      if (KV_ECHOED_FIELDS.has(key)) break;
      if (repeated.has(key)) return undefined;
      absorbed.add(j);
    }
    if (j < 0) return undefined;
  }
  return absorbed;
}

/** Every way to pick one occurrence of each repeated key, or undefined when there are too many. */
function choices(repeated: ReadonlyMap<string, number[]>): number[][] | undefined {
  let all: number[][] = [[]];
  for (const indexes of repeated.values()) {
    if (all.length * indexes.length > MAX_READINGS) return undefined;
    all = all.flatMap((picked) => indexes.map((i) => [...picked, i]));
  }
  return all;
}

/** The gateway's own fields of a reading (every field but the echoed ones), as one text. */
function gatewayPart(fields: FormFields): string {
  return JSON.stringify(
    Object.keys(fields)
      .filter((k) => !KV_ECHOED_FIELDS.has(k))
      .sort()
      .map((k) => [k, fields[k]]),
  );
}

/**
 * Reads a KV answer knowing which fields echo the shop's text (and, given `expect`, what the
 * gateway's own fields must say: the TID, MID and order sent). The gateway escapes nothing, so
 * `GoodsName=a&Amt=5` may be one field or two. An answer that names a key once is read with
 * every `Key=` segment as a field (a segment that is not `Key=` continues the value before it).
 * When a key comes twice, one occurrence is the gateway's and the others can only be text
 * inside an echoed field's value: every such reading is tried, the ones that take the fewest
 * segments as shop text are kept, those giving a field of a fixed shape (SHAPES) another shape
 * are dropped, and if the rest agree on every field but the echoed ones the answer is read that
 * way (the echoed text itself may then be split either way). Otherwise, or when no reading is
 * possible, it is `ambiguous`: the answer can be read two ways.
 */
export function readKv(body: Uint8Array, charset: Charset, expect?: Readonly<Record<string, string>>): KvReading {
  const segments = segmentsOf(decodeBytes(body, charset));
  const positions = new Map<string, number[]>();
  segments.forEach(({ key }, i) => {
    if (key !== undefined) positions.set(key, [...(positions.get(key) ?? []), i]);
  });
  const repeated = new Map([...positions].filter(([, indexes]) => indexes.length > 1));
  if (repeated.size === 0) return { fields: assemble(segments, new Set()) };
  const all = choices(repeated);
  if (!all) return { ambiguous: 'the answer names fields twice too often to be read one way' };
  let best: Array<Set<number>> = [];
  for (const picked of all) {
    const absorbed = absorbedBy(segments, repeated, new Set(picked));
    if (!absorbed) continue;
    if (best.length === 0 || absorbed.size < best[0]!.size) best = [absorbed];
    else if (absorbed.size === best[0]!.size) best.push(absorbed);
  }
  if (best.length === 0) return { ambiguous: 'the answer names a field twice outside any echoed text' };
  const candidates = best.map((absorbed) => assemble(segments, absorbed));
  const shaped = candidates.filter(wellShaped);
  const plausible = shaped.length > 0 ? shaped : candidates;
  // What the answer must name (the TID, MID and order sent) tells a genuine reading from one
  // where the shop's text holds a look-alike: keep the readings that name exactly those.
  const named = expect ? plausible.filter((r) => Object.entries(expect).every(([k, v]) => r[k] === v)) : [];
  const readings = named.length > 0 ? named : plausible;
  const first = gatewayPart(readings[0]!);
  if (readings.some((r) => gatewayPart(r) !== first))
    return { ambiguous: "the answer names a field twice and either copy may be the shop's echoed text" };
  return { fields: readings[0]! };
}

/**
 * The gateway's `EdiType=KV` response: `Key=value` pairs joined by `&`, values not escaped, read
 * as {@link readKv} does; an answer it finds ambiguous is read with the first occurrence of each
 * key winning. Keys are stored on an {@link emptyFields} record.
 */
export function parseKv(body: Uint8Array, charset: Charset): FormFields {
  const reading = readKv(body, charset);
  return reading.fields ?? assemble(segmentsOf(decodeBytes(body, charset)), new Set());
}

/** Serialises fields as a KV body in the given charset (the sandbox's side of {@link parseKv}). */
export function serializeKv(fields: Record<string, string>, charset: Charset): Buffer {
  return encodeText(
    Object.entries(fields)
      .map(([k, v]) => `${k}=${v}`)
      .join('&'),
    charset,
  );
}
