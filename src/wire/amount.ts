/** Largest amount the 12-byte Amt field can carry. */
export const MAX_AMOUNT = 999_999_999_999;

/**
 * Parses a gateway amount string ("000000001004" or "1004") into whole won. Returns undefined
 * for anything but 1 to 20 ASCII digits within the safe-integer range.
 */
export function parseAmount(text: string): number | undefined {
  if (!/^\d{1,20}$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** True for a whole number of won that fits the 12-digit Amt field. */
export function isValidAmount(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 && n <= MAX_AMOUNT;
}

/** The 12-digit zero-padded form the gateway uses in responses. */
export function padAmount(n: number): string {
  return String(n).padStart(12, '0');
}
