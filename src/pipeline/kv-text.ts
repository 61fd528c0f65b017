import { NicepayRequestError } from '../errors/index.js';

/**
 * A KV answer is `Key=value&…` with nothing escaped (gateway-interface.md), and the gateway
 * echoes the shop's own text (GoodsName, MallReserved, buyer fields) into it: an `&` or `=` in
 * such a value makes the answer name further fields, or a field twice, and a genuine approval
 * would be read as unusable (and net-cancelled) or, worse, as something it is not. Every flow
 * that sends shop text and asks for a KV answer refuses such text before anything is sent.
 *
 * Returns the first of `fields` (wire names, in order) whose value holds `&` or `=`.
 */
export function kvUnsafeField(
  fields: Readonly<Record<string, string | undefined>>,
  names: readonly string[],
): string | undefined {
  for (const name of names) {
    const value = fields[name];
    if (value !== undefined && (value.includes('&') || value.includes('='))) return name;
  }
  return undefined;
}

/**
 * Throws NICEPAY_FIELD_INVALID naming `option` (the shop's name of the field) when
 * {@link kvUnsafeField} finds one; `what` names the call in the message.
 */
export function refuseKvUnsafe(
  what: string,
  ediType: string,
  fields: Readonly<Record<string, string | undefined>>,
  optionOf: Readonly<Record<string, string>>,
): void {
  if (ediType !== 'KV') return;
  const field = kvUnsafeField(fields, Object.keys(optionOf));
  if (field === undefined) return;
  const option = optionOf[field]!;
  throw new NicepayRequestError(
    'NICEPAY_FIELD_INVALID',
    `${what}: ${option} must not contain '&' or '=' when ediType is 'KV' (the KV answer echoes it unescaped and could not be read unambiguously); use ediType 'JSON'. Nothing was sent`,
    option,
  );
}
