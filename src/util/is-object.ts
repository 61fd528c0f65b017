/** True for a non-null object (arrays included): what may be read as a record of options or fields. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
