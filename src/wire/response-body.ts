import { type Charset, WireFormatError, decodeBytes } from './charset.js';
import type { FormFields } from './form-codec.js';
import { parseKv } from './kv.js';

/** The response format asked for with EdiType. */
export type EdiType = 'JSON' | 'KV';

/**
 * Parses a gateway response by the CharSet and EdiType that were asked for, whatever
 * Content-Type came back (real responses say text/html). Scalar values become strings;
 * keys land on a null-prototype object so `__proto__` is only a key. Throws
 * WireFormatError when the body is not what was asked for.
 */
export function parseGatewayBody(body: Uint8Array, charset: Charset, ediType: EdiType): FormFields {
  if (ediType === 'KV') {
    const fields = parseKv(body, charset);
    if (Object.keys(fields).length === 0) throw new WireFormatError('response is not Key=value pairs');
    return fields;
  }
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
  const fields: FormFields = Object.create(null) as FormFields;
  const obj = parsed as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    const value = obj[key];
    if (typeof value === 'string') fields[key] = value;
    else if (value === null || value === undefined) fields[key] = '';
    else if (typeof value === 'object') fields[key] = JSON.stringify(value);
    else fields[key] = String(value);
  }
  return fields;
}
