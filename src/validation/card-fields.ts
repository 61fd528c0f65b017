import { fieldInvalid } from './input-text.js';

/** Luhn (ISO/IEC 7812-1 annex B) check of a digit string. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * A card number as the gateway takes it (key-in's EncData and billing registration both hold at
 * most 16 digits): spaces and dashes dropped, 13-16 digits, a valid Luhn check digit. Errors name
 * `card.number`, never the value.
 */
export function cardNumberOf(value: unknown, where: string): string {
  if (typeof value !== 'string') throw fieldInvalid('card.number', 'must be a string of 13-16 digits');
  const digits = value.replace(/[\s-]/g, '');
  if (!/^\d{13,16}$/.test(digits))
    throw fieldInvalid('card.number', `must be 13-16 digits (${where} holds at most 16)`);
  if (!luhnValid(digits)) throw fieldInvalid('card.number', 'fails the Luhn check digit; check for a typing error');
  return digits;
}

/** The card holder's birth date (YYMMDD) or business registration number, when given. */
export function holderNumberOf(value: unknown, field: string): string | undefined {
  return optionalDigits(
    value,
    field,
    /^(?:\d{6}|\d{10})$/,
    'must be 6 digits (birth date YYMMDD) or 10 digits (business registration number)',
  );
}

/** The first two digits of the card password, when given. */
export function passwordPrefixOf(value: unknown, field: string): string | undefined {
  return optionalDigits(value, field, /^\d{2}$/, 'must be exactly 2 digits (the first two of the card password)');
}

function optionalDigits(value: unknown, field: string, pattern: RegExp, rule: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' || !pattern.test(value)) throw fieldInvalid(field, rule);
  return value;
}
