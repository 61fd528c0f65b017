/**
 * True for a non-null object that is not an array: what may be read as a record of options,
 * fields or a JSON object. The one copy the option checks, the Redis store and the data-host
 * readers share.
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
