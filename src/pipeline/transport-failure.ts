import { TransportError } from '../transport.js';

/**
 * What a failed outbound call means for the money, the one classification every gateway call
 * shares: `not-sent` (the request provably never left: nothing happened, it may be retried),
 * `http-status` (the gateway answered with an error status: it was reached, and may have
 * acted) or `unknown` (sent, then timed out or lost: the gateway may have acted).
 */
export type TransportOutcome = 'not-sent' | 'http-status' | 'unknown';

/** A failure as a TransportError (anything else thrown counts as a reset after sending). */
export function asTransportError(err: unknown, what: string): TransportError {
  return err instanceof TransportError ? err : new TransportError('reset', true, `${what} failed`);
}

/** Classifies a transport failure; see {@link TransportOutcome}. */
export function transportOutcome(err: TransportError): TransportOutcome {
  if (!err.sent) return 'not-sent';
  return err.kind === 'status' ? 'http-status' : 'unknown';
}
