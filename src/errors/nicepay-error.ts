/** Marks our errors across two copies of the package (instanceof would fail there). */
const BRAND = Symbol.for('express-nicepay.error');

/** What became of the net cancel sent after an approval whose outcome was unknown. */
export type NetCancelOutcome = 'succeeded' | 'failed' | 'not-attempted';

/** Stable machine-readable error codes. Branch on these, never on messages. */
export type NicepayErrorCode =
  | 'NICEPAY_CONFIG_INVALID'
  | 'NICEPAY_BODY_TOO_LARGE'
  | 'NICEPAY_BODY_MALFORMED'
  | 'NICEPAY_BODY_ALREADY_PARSED'
  | 'NICEPAY_CONTENT_TYPE_UNSUPPORTED'
  | 'NICEPAY_CHARSET_UNSUPPORTED'
  | 'NICEPAY_FIELD_INVALID'
  | 'NICEPAY_UNTRUSTED_URL'
  | 'NICEPAY_UNKNOWN_ORDER'
  | 'NICEPAY_AMOUNT_MISMATCH'
  | 'NICEPAY_SIGNATURE_MISMATCH'
  | 'NICEPAY_INSECURE_TRANSPORT'
  | 'NICEPAY_GATEWAY_UNREACHABLE'
  | 'NICEPAY_OUTCOME_UNKNOWN'
  | 'NICEPAY_GATEWAY_ERROR'
  | 'NICEPAY_HOOK_FAILED'
  | 'NICEPAY_IN_PROGRESS'
  | 'NICEPAY_STORE_UNAVAILABLE'
  | 'NICEPAY_SCHEDULE_VIOLATION'
  | 'NICEPAY_SHUTTING_DOWN'
  | 'NICEPAY_RETRY_LATER'
  | 'NICEPAY_CANCEL_EXCEEDS_REMAINING';

/** Constructor fields shared by every error of the package. */
export interface NicepayErrorInit {
  status: number;
  /** Whether the message may be shown to the client (http-errors' `expose`). @default status < 500 */
  expose?: boolean;
  /** The form field the error is about, when there is one (never its value). */
  field?: string;
  cause?: unknown;
}

/**
 * Base of every error express-nicepay throws or passes to `next(err)`, in the http-errors
 * shape Express users know: `status`, a stable `code`, `expose`. Messages and `toJSON()`
 * never contain a merchant key or card data.
 */
export class NicepayError extends Error {
  override name = 'NicepayError';
  readonly code: NicepayErrorCode;
  readonly status: number;
  /** Alias of `status`, as http-errors sets it. */
  readonly statusCode: number;
  readonly expose: boolean;
  readonly field: string | undefined;

  constructor(code: NicepayErrorCode, message: string, init: NicepayErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = code;
    this.status = init.status;
    this.statusCode = init.status;
    this.expose = init.expose ?? init.status < 500;
    this.field = init.field;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** A plain, secret-free object for logs and API responses. */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { name: this.name, code: this.code, status: this.status, message: this.message };
    for (const [k, v] of Object.entries(this)) {
      if (!(k in out) && k !== 'statusCode' && k !== 'expose' && v !== undefined) out[k] = v;
    }
    return out;
  }

  /** Recognises errors of another copy of the package too (a brand, not the prototype chain). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isNicepayError(value);
  }
}

/** True for any error of this package, even from another copy of it. */
export function isNicepayError(value: unknown): value is NicepayError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}
