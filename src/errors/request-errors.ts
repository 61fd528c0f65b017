import type { CodeOf } from './codes.js';
import { brandOf, NicepayError } from './nicepay-error.js';

/**
 * A request refused before anything was sent, always a 4xx: bad input from the buyer's browser
 * or the shop's caller, or a conflict. Nothing changed. `field` names the offending form field;
 * the value is never repeated.
 */
export class NicepayRequestError extends NicepayError {
  static override readonly brand: symbol = brandOf('NicepayRequestError');
  static {
    NicepayRequestError.prototype.name = 'NicepayRequestError';
  }
  constructor(code: CodeOf<'NicepayRequestError'>, message: string, field?: string, cause?: unknown) {
    super(code, message, { ...(field !== undefined ? { field } : {}), cause });
  }
}

/**
 * This server could not take the request, through nobody's input: the idempotency store is
 * unavailable (503), close() was called (503), or another body parser consumed the body first
 * (500, a mount-order mistake). Nothing was sent; the first two may be retried shortly.
 */
export class NicepayServiceError extends NicepayError {
  static override readonly brand: symbol = brandOf('NicepayServiceError');
  static {
    NicepayServiceError.prototype.name = 'NicepayServiceError';
  }
  constructor(code: CodeOf<'NicepayServiceError'>, message: string, cause?: unknown) {
    super(code, message, { cause });
  }
}

/** A misconfigured option, thrown when the factory is called (never on the first buyer). */
export class NicepayConfigError extends NicepayError {
  static override readonly brand: symbol = brandOf('NicepayConfigError');
  static {
    NicepayConfigError.prototype.name = 'NicepayConfigError';
  }
  constructor(option: string, wants: string, cause?: unknown) {
    super('NICEPAY_CONFIG_INVALID', `express-nicepay option ${option} is invalid: ${wants}`, {
      expose: false,
      cause,
      field: option,
    });
  }
}

/** A rule of the payout schedule (KST cut-offs, blackout, business days) would be broken. */
export class NicepayScheduleError extends NicepayError {
  static override readonly brand: symbol = brandOf('NicepayScheduleError');
  static {
    NicepayScheduleError.prototype.name = 'NicepayScheduleError';
  }
  constructor(
    readonly rule: string,
    message: string,
  ) {
    super('NICEPAY_SCHEDULE_VIOLATION', message);
  }
}
