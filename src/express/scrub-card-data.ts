import type { Request } from 'express';

/**
 * The top-level fields the key-in route reads card data from, as the shop's form posts them.
 * They are handed back to the router (which validates them) and removed from `req.body`.
 */
export const CARD_FIELDS = ['cardNumber', 'cardExpiry', 'buyerAuthNum', 'cardPassword2'] as const;

/** The card fields taken off the body: each as posted (validation happens later). */
export type TakenCardFields = Partial<Record<(typeof CARD_FIELDS)[number], unknown>>;

/**
 * Names that hold card data under any spelling: compared lower-case with everything but
 * letters and digits removed, so `cardNumber`, `card_number`, `CARD-NO` and PHP's
 * `cardNumber[]` all match. Covers the route's own fields, the library's `card: { number,
 * expiry, buyerAuthNum, password2 }` (the whole `card` key goes), billing's `expYear` /
 * `expMonth` / `idNo`, and the names shops commonly give the same data.
 */
const CARD_NAMES: ReadonlySet<string> = new Set([
  'card', 'cardnumber', 'cardno', 'cardnum', 'number', 'pan', 'ccnumber', 'creditcard',
  'cardexpiry', 'expiry', 'expiration', 'expdate', 'cardexpire', 'expyear', 'expmonth', 'exp', 'cardyy', 'cardmm', 'yy', 'mm',
  'buyerauthnum', 'authnum', 'birth', 'birthdate', 'birthday', 'dob', 'idno', 'socialno', 'ssn',
  'cardpassword2', 'cardpassword', 'password2', 'cardpw', 'cardpwd', 'pin', 'cvc', 'cvv', 'cvc2', 'cvv2',
]);

/**
 * The route's own fields that are not card data: read after the scrub, so a Moid made of a
 * long digit run (a millisecond timestamp) is kept. Card-named keys go whatever they hold.
 */
const ROUTE_FIELDS: ReadonlySet<string> = new Set(['moid', 'amount', 'goodsName', 'quota', 'buyerName', 'buyerEmail', 'buyerTel']);

/** A run of 13 to 19 digits, spaces or dashes between them allowed: what a card number looks like. */
const PAN_LIKE = /\d(?:[ -]?\d){12,18}/;

/** How deep a posted body is walked; the parsers already bound its size. */
const MAX_DEPTH = 32;

/** `cardNumber[]` and `card[number]` as urlencoded parsers without `extended` keep them. */
function keyName(key: string): string {
  const bracket = key.indexOf('[');
  return (bracket > 0 ? key.slice(0, bracket) : key).toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** True when a value could carry card digits: a string (or number) with a card-number-like run. */
function panLike(value: unknown): boolean {
  return (typeof value === 'string' || typeof value === 'number') && PAN_LIKE.test(String(value));
}

/** Deletes card-named keys and card-number-like values from an object or array, in place. */
function scrubValue(value: unknown, depth: number): void {
  if (typeof value !== 'object' || value === null) return;
  if (depth > MAX_DEPTH) {
    // Deeper than any key-in form: drop everything below rather than leave it unchecked.
    for (const key of Object.keys(value)) delete (value as Record<string, unknown>)[key];
    return;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (panLike(value[i])) value[i] = undefined;
      else scrubValue(value[i], depth + 1);
    }
    return;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const own = depth === 0 && ROUTE_FIELDS.has(key) && typeof record[key] !== 'object';
    if (CARD_NAMES.has(keyName(key)) || (!own && panLike(record[key]))) delete record[key];
    else scrubValue(record[key], depth + 1);
  }
}

/**
 * Takes the card fields off a key-in request and leaves no card data on `req`: the route's own
 * top-level fields are returned for validation; then every key named like card data (any
 * spelling, PHP-style `cardNumber[]`, the library's `card: {...}`, at any depth) and every
 * value that looks like a card number is deleted from `req.body`. A body that is not a plain
 * object (a JSON array, a string a text parser left) is never a valid key-in, so it is replaced
 * by an empty object whole. Call it before anything can fail, so that no later handler, logger or error
 * handler of the shop ever sees the data.
 */
export function scrubCardData(req: Request): TakenCardFields {
  const body: unknown = req.body;
  const taken: TakenCardFields = {};
  if (body === undefined || body === null) return taken;
  const proto: unknown = typeof body === 'object' ? Object.getPrototypeOf(body) : undefined;
  if (typeof body !== 'object' || Array.isArray(body) || (proto !== Object.prototype && proto !== null)) {
    req.body = {};
    return taken;
  }
  const f = body as Record<string, unknown>;
  for (const name of CARD_FIELDS) {
    if (Object.hasOwn(f, name)) taken[name] = f[name];
  }
  scrubValue(f, 0);
  return taken;
}
