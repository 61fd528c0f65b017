/**
 * Every error code the package throws, with the one class and the one HTTP status it always
 * has (a shop branches on `code` alone). The classes say what the error holds:
 * NicepayRequestError a 4xx refusal of the request (bad input, a conflict; nothing changed),
 * NicepayServiceError a 5xx of this server that is nobody's input (store down, shutting down,
 * mount order; nothing was sent), NicepayGatewayError what the gateway did or may have done,
 * NicepayHookError the shop's own hook, NicepayConfigError a bad option at start-up. To add a code, add a row here: the
 * error classes take their status from this table, and test/errors.test.ts checks each row.
 */
export const ERROR_CODES = {
  /** A bad option, thrown by a factory at start-up: only configuration, never a request. */
  NICEPAY_CONFIG_INVALID: { class: 'NicepayConfigError', status: 500 },
  /** Another body parser consumed the auth return first: a mount-order mistake. */
  NICEPAY_BODY_ALREADY_PARSED: { class: 'NicepayServiceError', status: 500 },
  NICEPAY_BODY_TOO_LARGE: { class: 'NicepayRequestError', status: 413 },
  NICEPAY_BODY_MALFORMED: { class: 'NicepayRequestError', status: 400 },
  NICEPAY_CONTENT_TYPE_UNSUPPORTED: { class: 'NicepayRequestError', status: 415 },
  /** A charset the route does not decode: unknown, or not the one the window was opened with. */
  NICEPAY_CHARSET_UNSUPPORTED: { class: 'NicepayRequestError', status: 415 },
  NICEPAY_FIELD_INVALID: { class: 'NicepayRequestError', status: 400 },
  NICEPAY_UNTRUSTED_URL: { class: 'NicepayRequestError', status: 400 },
  NICEPAY_UNKNOWN_ORDER: { class: 'NicepayRequestError', status: 404 },
  /** The buyer-supplied amount (auth-return Amt, posted key-in amount) is not the order's. */
  NICEPAY_AMOUNT_MISMATCH: { class: 'NicepayRequestError', status: 400 },
  /** The buyer's auth return does not verify: forged or for another merchant key. */
  NICEPAY_SIGNATURE_MISMATCH: { class: 'NicepayRequestError', status: 400 },
  /**
   * A TID or Moid already processed is presented with another AuthToken, card or amount: the
   * stored result is not served, nothing is sent, the rightful buyer is unaffected.
   */
  NICEPAY_DUPLICATE_MISMATCH: { class: 'NicepayRequestError', status: 409 },
  /**
   * The gateway declined, but its answer names another order than the return's Moid, or none:
   * the return is forged or mismatched. Nothing was charged and no order's result is reported.
   */
  NICEPAY_DECLINE_ORDER_MISMATCH: { class: 'NicepayRequestError', status: 400 },
  /**
   * The gateway refused this auth return's token for its TxTid (another buyer's TxTid, a used or
   * expired token): the return is nobody's order. Nothing was charged or recorded.
   */
  NICEPAY_RETURN_INVALID: { class: 'NicepayRequestError', status: 400 },
  /**
   * The gateway had processed this TxTid before, and nothing in this store or in the gateway's
   * signed answer attributes it to the return's order (or the gateway holds nothing for it):
   * answered as a duplicate, nothing recorded or changed now.
   */
  NICEPAY_ALREADY_PROCESSED: { class: 'NicepayRequestError', status: 409 },
  /**
   * The gateway refused the order number as charged before (1681 / A127 duplicate Moid; `moid`
   * is the order it named): this request charged nothing, and the earlier charge of the Moid
   * stands. Not a decline of the order (it may be paid): nothing recorded or changed now.
   */
  NICEPAY_MOID_CHARGED_BEFORE: { class: 'NicepayGatewayError', status: 409 },
  NICEPAY_INSECURE_TRANSPORT: { class: 'NicepayRequestError', status: 403 },
  /** A duplicate waited longer than the lock for the first request's result. */
  NICEPAY_IN_PROGRESS: { class: 'NicepayRequestError', status: 409 },
  /** The store could not be read or written: nothing was sent. */
  NICEPAY_STORE_UNAVAILABLE: { class: 'NicepayServiceError', status: 503 },
  /** The store is full of live money records and takes no new operation until some close: nothing was sent. */
  NICEPAY_STORE_FULL: { class: 'NicepayServiceError', status: 503 },
  /** close() was called: nothing was sent. */
  NICEPAY_SHUTTING_DOWN: { class: 'NicepayServiceError', status: 503 },
  NICEPAY_SCHEDULE_VIOLATION: { class: 'NicepayScheduleError', status: 422 },
  /** Could not connect: nothing was sent, nothing charged. */
  NICEPAY_GATEWAY_UNREACHABLE: { class: 'NicepayGatewayError', status: 503 },
  /** The gateway may have acted and its answer cannot be used (see `netCancel`). */
  NICEPAY_OUTCOME_UNKNOWN: { class: 'NicepayGatewayError', status: 502 },
  /** A success answer whose Signature, TID, MID or Moid does not verify: money may have moved. */
  NICEPAY_ANSWER_UNVERIFIED: { class: 'NicepayGatewayError', status: 502 },
  /** A verified success answer for another amount than the order's: money may have moved. */
  NICEPAY_ANSWER_AMOUNT_MISMATCH: { class: 'NicepayGatewayError', status: 502 },
  /** An answer to a query (status, balance, results, reconciliation) that cannot be used: lost, an error status, unreadable, 8xxx / 9xxx. Nothing changed; ask again. */
  NICEPAY_GATEWAY_ERROR: { class: 'NicepayGatewayError', status: 502 },
  /** The gateway refused the status inquiry (its ResultCode was not 0000): nothing changed. */
  NICEPAY_QUERY_REFUSED: { class: 'NicepayGatewayError', status: 502 },
  /** The shop's own hook (onApproved, onDeposit, onCancel) rejected or never settled. */
  NICEPAY_HOOK_FAILED: { class: 'NicepayHookError', status: 500 },
  /** The shop's own hook returned what the package cannot use (expectedAmount: not a positive integer). */
  NICEPAY_HOOK_RESULT_INVALID: { class: 'NicepayHookError', status: 500 },
  /** The gateway asked to retry later (cancel 2056 card-company timeout, 1227 backup database): nothing was done. */
  NICEPAY_RETRY_LATER: { class: 'NicepayGatewayError', status: 503 },
  /** A partial cancel larger than the remaining amount the shop passed: nothing was sent. */
  NICEPAY_CANCEL_EXCEEDS_REMAINING: { class: 'NicepayRequestError', status: 422 },
  /** The data host refused: a resCode other than 0000, 8xxx and 9xxx (see `resCode`, `reason`). Nothing happened. */
  NICEPAY_DATA_HOST_REFUSED: { class: 'NicepayDataApiError', status: 502 },
} as const satisfies Record<string, { class: ErrorClassName; status: number }>;

/** The name of each error class, as the table names it. */
export type ErrorClassName =
  | 'NicepayConfigError'
  | 'NicepayRequestError'
  | 'NicepayServiceError'
  | 'NicepayScheduleError'
  | 'NicepayGatewayError'
  | 'NicepayHookError'
  | 'NicepayDataApiError';

/** Stable machine-readable error codes. Branch on these, never on messages. */
export type NicepayErrorCode = keyof typeof ERROR_CODES;

/** The codes one class is thrown with. */
export type CodeOf<C extends ErrorClassName> = {
  [K in NicepayErrorCode]: (typeof ERROR_CODES)[K]['class'] extends C ? K : never;
}[NicepayErrorCode];

/** The HTTP status of a code, from the table. */
export function statusOf(code: NicepayErrorCode): number {
  return ERROR_CODES[code].status;
}
