import type { Request } from 'express';
import { ownCopy } from '../own-copy.js';

/**
 * The top-level fields the key-in route reads card data from, as the shop's form posts them.
 * They are handed back to the router (which validates them) and never left on `req.body`.
 */
export const CARD_FIELDS = ['cardNumber', 'cardExpiry', 'buyerAuthNum', 'cardPassword2'] as const;

/**
 * The route's own fields that are not card data, and the CSRF token field of csurf-style
 * middleware (`_csrf`): the only fields left on `req.body` after the router read it, besides
 * those the shop names in `keepFields`.
 */
export const KEPT_FIELDS = [
  'moid',
  'amount',
  'goodsName',
  'quota',
  'buyerName',
  'buyerEmail',
  'buyerTel',
  '_csrf',
] as const;

/** What the router takes off a key-in body: the card fields and the kept fields, each as posted. */
export interface TakenFields {
  /** The card fields, as posted (validation happens later); never left on `req.body`. */
  card: Partial<Record<(typeof CARD_FIELDS)[number], unknown>>;
  /** The kept fields, as posted, whatever `req.body` keeps of them. */
  form: Record<string, unknown>;
}

/**
 * Names that read as card data: compared lower-case with everything but letters and digits
 * removed and trailing digits dropped (`cardNo1` is `cardno`), or starting with `card` or
 * `birth`. Used to refuse a `keepFields` entry that would keep card data on `req.body`; the
 * body itself is scrubbed by allow-list, whatever its names.
 */
const CARD_NAMES: ReadonlySet<string> = new Set([
  'number',
  'pan',
  'ccnumber',
  'creditcard',
  'cc',
  'ccno',
  'expiry',
  'expiration',
  'expirydate',
  'expdate',
  'expyear',
  'expmonth',
  'exp',
  'validthru',
  'validity',
  'yy',
  'mm',
  'yymm',
  'authnum',
  'dob',
  'idno',
  'socialno',
  'ssn',
  'password2',
  'password',
  'pw',
  'pwd',
  'pin',
  'cvc',
  'cvv',
  'cvc2',
  'cvv2',
]);

/** A run of 13 to 19 digits, spaces or dashes between them allowed: what a card number looks like. */
const PAN_LIKE = /\d(?:[ -]?\d){12,18}/;

/** True when a field name reads as card data (see CARD_NAMES). */
export function isCardName(name: string): boolean {
  const plain = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  const stem = plain.replace(/\d+$/, '');
  return (
    plain.startsWith('card') ||
    plain.startsWith('birth') ||
    plain.startsWith('buyerauth') ||
    CARD_NAMES.has(stem) ||
    CARD_NAMES.has(plain)
  );
}

/**
 * True when a kept field's value may stay on `req.body`: a single string or number, with no
 * card-number-like run unless it is the Moid (a millisecond timestamp Moid is a long digit run).
 */
function keepable(name: string, value: unknown): boolean {
  if (typeof value !== 'string' && !(typeof value === 'number' && Number.isFinite(value))) return false;
  return name === 'moid' || !PAN_LIKE.test(String(value));
}

/** Empties an object or array in place, so a reference held elsewhere keeps nothing either. */
function empty(value: object): void {
  if (Array.isArray(value)) value.length = 0;
  else for (const key of Object.keys(value)) delete (value as Record<string, unknown>)[key];
}

/**
 * Takes a key-in request's fields off `req.body` and leaves only an allow-list there: the
 * route's own non-card fields and `_csrf` (KEPT_FIELDS) plus `keepFields`, each only as a single
 * string or number and never holding a card-number-like run (the Moid excepted), each string a
 * copy that shares no memory with the posted body (ownCopy). Everything
 * else goes whatever its name or shape (`cardNo1`..`cardNo4`, `validThru`, `birthYmd`,
 * `card: {...}`, `cardNumber[]`, nested objects, arrays), emptied in place so a reference held
 * elsewhere keeps nothing either. A body that is not a plain object (a JSON array, a string a
 * text parser left) is never a valid key-in: `req.body` becomes `{}`. Call it before anything
 * can fail, so that no later handler, logger or error handler of the shop ever sees card data.
 */
export function scrubCardData(req: Request, keepFields: readonly string[] = []): TakenFields {
  const body: unknown = req.body;
  const taken: TakenFields = { card: {}, form: {} };
  if (body === undefined || body === null) return taken;
  const proto: unknown = typeof body === 'object' ? Object.getPrototypeOf(body) : undefined;
  if (typeof body !== 'object' || Array.isArray(body) || (proto !== Object.prototype && proto !== null)) {
    if (typeof body === 'object') empty(body);
    req.body = {};
    return taken;
  }
  const f = body as Record<string, unknown>;
  for (const name of CARD_FIELDS) {
    if (Object.hasOwn(f, name)) taken.card[name] = f[name];
  }
  const kept: Record<string, unknown> = {};
  for (const name of [...KEPT_FIELDS, ...keepFields]) {
    if (!Object.hasOwn(f, name)) continue;
    // A copy of its own: a body parser's value is a view of the whole body, card fields included,
    // and what is left on req.body, or named in an error, may be kept after the request.
    const value = typeof f[name] === 'string' ? ownCopy(f[name]) : f[name];
    taken.form[name] = value;
    if (keepable(name, value)) kept[name] = value;
  }
  empty(f);
  Object.assign(f, kept);
  return taken;
}
