import { type NicepayErrorCode, statusOf } from './codes.js';
import { withStackText } from './stack-text.js';

export type { NicepayErrorCode } from './codes.js';

/**
 * The brand of the base class: marks our errors across two copies of the package (instanceof
 * by prototype fails there). Kept as it was so older copies recognise newer errors.
 */
const BASE_BRAND = Symbol.for('express-nicepay.error');

/** The brand of one error class, shared by every copy of the package (Symbol.for). */
export function brandOf(className: string): symbol {
  return Symbol.for(`express-nicepay.error.${className}`);
}

/** What became of the net cancel sent after an approval whose outcome was unknown. */
export type NetCancelOutcome = 'succeeded' | 'failed' | 'not-attempted';

/** Constructor fields shared by every error of the package. The status comes from the code. */
export interface NicepayErrorInit {
  /** Whether the message may be shown to the client (http-errors' `expose`). @default status < 500 */
  expose?: boolean;
  /** The form field the error is about, when there is one (never its value). */
  field?: string;
  cause?: unknown;
}

/**
 * Base of every error express-nicepay throws or passes to `next(err)`, in the http-errors
 * shape Express users know: `status`, a stable `code`, `expose`. Each code has one status and
 * one class (src/errors/codes.ts). Messages and `toJSON()` never contain a merchant key or
 * card data.
 */
export class NicepayError extends Error {
  /** This class's brand, `Symbol.for("express-nicepay.error.<ClassName>")`; each subclass declares its own. */
  static readonly brand: symbol = BASE_BRAND;
  static {
    // On the prototype, not each instance: the stack (made text in the constructor) is headed
    // by the name, and a subclass's own instance field would be set only after that.
    NicepayError.prototype.name = 'NicepayError';
  }
  readonly code: NicepayErrorCode;
  readonly status: number;
  /** Alias of `status`, as http-errors sets it. */
  readonly statusCode: number;
  readonly expose: boolean;
  readonly field: string | undefined;

  /** Each code is thrown by the one class codes.ts names (the subclasses); not by the base itself. */
  constructor(code: NicepayErrorCode, message: string, init: NicepayErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    const status = statusOf(code);
    this.code = code;
    this.status = status;
    this.statusCode = status;
    this.expose = init.expose ?? status < 500;
    this.field = init.field;
    // One non-enumerable brand per class of the chain that declares one, so a subclass's
    // instanceof holds across copies of the package but never for a sibling class.
    for (
      let ctor: unknown = new.target;
      typeof ctor === 'function' && ctor !== Error;
      ctor = Object.getPrototypeOf(ctor)
    ) {
      if (Object.hasOwn(ctor, 'brand'))
        Object.defineProperty(this, (ctor as unknown as { brand: symbol }).brand, { value: true });
    }
    // The package's own classes only: they are made in the package's frames, and are complete
    // here. A shop's subclass is made in its own, and may set its name or message after this.
    if (Object.hasOwn(new.target, 'brand')) withStackText(this);
  }

  /** A plain, secret-free object for logs and API responses. */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = {
      name: this.name,
      code: this.code,
      status: this.status,
      message: this.message,
    };
    for (const [k, v] of Object.entries(this)) {
      if (!(k in out) && k !== 'statusCode' && k !== 'expose' && v !== undefined) out[k] = v;
    }
    return out;
  }

  /**
   * `err instanceof X` is true for an instance of X or of its subclasses, from this copy of the
   * package (prototype chain) or another one (X's brand). A static method is inherited, so it
   * reads the brand of the class it is called on (`this`), never the base's.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass instanceof was asked about, not the base
    return isInstanceOf(this, value);
  }
}

/** `value instanceof asked`: by the prototype chain, or by the brand `asked` itself owns. */
function isInstanceOf(asked: object, value: unknown): boolean {
  if (Function.prototype[Symbol.hasInstance].call(asked, value)) return true;
  if (typeof value !== 'object' || value === null || !Object.hasOwn(asked, 'brand')) return false;
  const brand = (asked as { brand: symbol }).brand;
  return (value as Record<symbol, unknown>)[brand] === true;
}

/** True for any error of this package, even from another copy of it. */
export function isNicepayError(value: unknown): value is NicepayError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BASE_BRAND] === true;
}
