import { NicepayError, type NicepayErrorCode } from './nicepay-error.js';

/**
 * Bad input from the buyer's browser or the shop's caller: a 4xx that changed nothing.
 * `field` names the offending form field; the value is never repeated.
 */
export class NicepayRequestError extends NicepayError {
  override name = 'NicepayRequestError';
  constructor(code: NicepayErrorCode, message: string, status = 400, field?: string, cause?: unknown) {
    super(code, message, { status, ...(field !== undefined ? { field } : {}), cause });
  }
}

/** A misconfigured option, thrown when the factory is called (never on the first buyer). */
export class NicepayConfigError extends NicepayError {
  override name = 'NicepayConfigError';
  constructor(option: string, wants: string) {
    super('NICEPAY_CONFIG_INVALID', `express-nicepay option ${option} is invalid: ${wants}`, { status: 500, expose: false });
  }
}

/** A rule of the payout schedule (KST cut-offs, blackout, business days) would be broken. */
export class NicepayScheduleError extends NicepayError {
  override name = 'NicepayScheduleError';
  constructor(readonly rule: string, message: string) {
    super('NICEPAY_SCHEDULE_VIOLATION', message, { status: 422 });
  }
}
