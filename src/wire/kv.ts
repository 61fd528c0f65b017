import { type Charset, decodeBytes, encodeText } from './charset.js';
import { emptyFields, type FormFields } from './form-codec.js';

/**
 * The gateway's `EdiType=KV` response: `Key=value` pairs joined by `&`, values not escaped.
 * A segment without `=` cannot start a pair, so it is taken as the continuation of the
 * previous value (an `&` inside a value such as MallReserved). The first occurrence of a key
 * wins; keys are stored on an {@link emptyFields} record.
 */
export function parseKv(body: Uint8Array, charset: Charset): FormFields {
  const text = decodeBytes(body, charset).replace(/\r?\n$/, '');
  const fields = emptyFields();
  let lastKey: string | undefined;
  for (const segment of text.split('&')) {
    const eq = segment.indexOf('=');
    if (eq <= 0 || !/^[A-Za-z][A-Za-z0-9_]*$/.test(segment.slice(0, eq))) {
      if (lastKey !== undefined) fields[lastKey] += '&' + segment;
      continue;
    }
    const key = segment.slice(0, eq);
    if (Object.hasOwn(fields, key)) {
      lastKey = undefined;
      continue;
    }
    fields[key] = segment.slice(eq + 1);
    lastKey = key;
  }
  return fields;
}

/** Serialises fields as a KV body in the given charset (the sandbox's side of {@link parseKv}). */
export function serializeKv(fields: Record<string, string>, charset: Charset): Buffer {
  return encodeText(Object.entries(fields).map(([k, v]) => `${k}=${v}`).join('&'), charset);
}
