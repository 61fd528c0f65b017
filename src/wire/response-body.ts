import { type Charset, decodeBytes, latin1Text, WireFormatError } from './charset.js';
import { hasDuplicateKeys, jsonKeyCount } from './duplicate-keys.js';
import { parseKv } from './kv.js';

/** The response format asked for with EdiType. */
export type EdiType = 'JSON' | 'KV';

/**
 * A parsed gateway answer: a frozen record whose own properties are the answer's fields, every
 * value a string. Read fields with {@link ownField}: a JSON answer's record keeps
 * Object.prototype (`__proto__` in the answer is only an own key).
 */
export type GatewayFields = Readonly<Record<string, string>>;

/**
 * A field the answer itself carries, or undefined: never a member inherited from
 * Object.prototype, even if something in the process has polluted it. Read gateway fields
 * through this.
 */
export function ownField(fields: GatewayFields, name: string): string | undefined {
  return Object.hasOwn(fields, name) ? fields[name] : undefined;
}

/**
 * Parses a gateway response by the CharSet and EdiType that were asked for, whatever
 * Content-Type came back (real responses say text/html). Scalar values become strings,
 * null an empty string, nested values their JSON text. Throws WireFormatError when the body
 * is not what was asked for, or names a field twice: JSON.parse keeps the last of two equal
 * keys and parseKv the first, so such an answer can be read two ways (a signed 3001 next to a
 * 9999, say) and its outcome is unknown whatever a parser makes of it (issue 18 item 6).
 */
export function parseGatewayBody(body: Uint8Array, charset: Charset, ediType: EdiType): GatewayFields {
  return ediType === 'KV' ? kvFields(body, charset) : jsonFields(body, charset);
}

/**
 * {@link parseGatewayBody} of an answer held as its latin1 reading (one character per byte,
 * see `latin1Text`), as an approval keeps it for its stored record.
 */
export function parseGatewayLatin1(latin1: string, charset: Charset, ediType: EdiType): GatewayFields {
  return parseGatewayBody(Buffer.from(latin1, 'latin1'), charset, ediType);
}

function kvFields(body: Uint8Array, charset: Charset): GatewayFields {
  if (hasDuplicateKeys(latin1Text(body), 'KV')) throw new WireFormatError(DUPLICATE);
  const fields = parseKv(body, charset);
  if (Object.keys(fields).length === 0) throw new WireFormatError('response is not Key=value pairs');
  return Object.freeze(fields);
}

/**
 * Decodes the whole answer in its charset, then JSON.parse (simple first: a latin1 reader that
 * decoded only the non-ASCII values was removed: no measurable gain). A byte-order mark and
 * surrounding white space go, as a lenient gateway client would drop them.
 */
function jsonFields(body: Uint8Array, charset: Charset): GatewayFields {
  const text = decodeBytes(body, charset).replace(/^\uFEFF/, '').trim();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new WireFormatError('response is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new WireFormatError('response JSON is not an object');
  }
  // JSON.parse defines every key as an own data property (`__proto__` included, which then
  // shadows the accessor): normalising the values in place keeps that safe object.
  const fields = parsed as Record<string, unknown>;
  const keys = Object.keys(fields);
  // One property per name: fewer keys here (and in nested objects) than the text names means
  // a name came twice. Counted, not collected: no set of keys per answer (jsonKeyCount).
  let ownKeys = keys.length;
  for (const key of keys) {
    const value = fields[key];
    if (typeof value === 'object' && value !== null) ownKeys += nestedKeyCount(value);
    if (typeof value !== 'string') fields[key] = scalarText(value);
  }
  if (jsonKeyCount(text) !== ownKeys) throw new WireFormatError(DUPLICATE);
  return Object.freeze(fields as Record<string, string>);
}

const DUPLICATE = 'response names a field twice, so it can be read two ways';

/** Own keys of every object inside a parsed JSON value, at any depth. */
function nestedKeyCount(value: object): number {
  const items = Array.isArray(value) ? value : Object.values(value);
  let n = Array.isArray(value) ? 0 : items.length;
  for (const item of items) if (typeof item === 'object' && item !== null) n += nestedKeyCount(item);
  return n;
}

/** A non-string JSON value as the gateway's form-field text would carry it. */
function scalarText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}
