import { type CodeOf } from './codes.js';
import { brandOf, NicepayError } from './nicepay-error.js';

/**
 * A request refused before anything was sent: bad input from the buyer's browser or the
 * shop's caller, a conflict, or a server that cannot take it now (store down, shutting down).
 * Nothing changed. `field` names the offending form field; the value is never repeated.
 */
export class NicepayRequestError extends NicepayError {
  static override readonly brand: symbol = brandOf('NicepayRequestError');
  override name = 'NicepayRequestError';
  constructor(code: CodeOf<'NicepayRequestError'>, message: string, field?: string, cause?: unknown);
  /** @deprecated the code decides the status (src/errors/codes.ts); pass the field third. */
  constructor(code: CodeOf<'NicepayRequestError'>, message: string, status: number, field?: string, cause?: unknown);
  constructor(code: CodeOf<'NicepayRequestError'>, message: string, a?: string | number, b?: unknown, c?: unknown) {
    const [field, cause] = typeof a === 'number' ? [b as string | undefined, c] : [a, b];
    super(code, message, { ...(field !== undefined ? { field } : {}), cause });
  }
}

/** A misconfigured option, thrown when the factory is called (never on the first buyer). */
export class NicepayConfigError extends NicepayError {
  static override readonly brand: symbol = brandOf('NicepayConfigError');
  override name = 'NicepayConfigError';
  constructor(option: string, wants: string, cause?: unknown) {
    super('NICEPAY_CONFIG_INVALID', `express-nicepay option ${option} is invalid: ${wants}`, { expose: false, cause, field: option });
  }
}

/** A rule of the payout schedule (KST cut-offs, blackout, business days) would be broken. */
export class NicepayScheduleError extends NicepayError {
  static override readonly brand: symbol = brandOf('NicepayScheduleError');
  override name = 'NicepayScheduleError';
  constructor(readonly rule: string, message: string) {
    super('NICEPAY_SCHEDULE_VIOLATION', message);
  }
}
