import { tracingChannel } from 'node:diagnostics_channel';
import type { CallIds, CallOutcome, GatewayOperation } from './operations.js';

/** The name of the TracingChannel every gateway call is published on. */
export const GATEWAY_CALL_CHANNEL = 'express-nicepay:gateway-call';

/**
 * The context object of one gateway call, published on every event of
 * {@link GATEWAY_CALL_CHANNEL} (`start`, `end`, `asyncStart`, `asyncEnd`, `error`): one object
 * per call, the same on each event, so a subscriber may keep its span on it. It names the
 * call, never a secret: no card data, merchant key, encKey, AuthToken, BID, SignData or body.
 */
export interface GatewayCallContext extends CallIds {
  operation: GatewayOperation;
  /** Set before `asyncStart`: what became of the call (see {@link CallOutcome}). */
  outcome?: CallOutcome;
  /** Set before `asyncStart` when an answer carried one: ResultCode / resCode. */
  resultCode?: string;
  /** Set before `error` when the call rejected: the NicepayError (secret-free by contract). */
  error?: unknown;
}

/** The channel itself (node:diagnostics_channel keeps one per name, so this is the one). */
export const gatewayCallChannel = tracingChannel<unknown, GatewayCallContext>(GATEWAY_CALL_CHANNEL);

/** True when anyone listens: the pipeline builds no context otherwise. */
export function tracing(): boolean {
  const c = gatewayCallChannel;
  return (
    c.start.hasSubscribers ||
    c.end.hasSubscribers ||
    c.asyncStart.hasSubscribers ||
    c.asyncEnd.hasSubscribers ||
    c.error.hasSubscribers
  );
}

/**
 * Publishes `work` as one traced call, the way TracingChannel.tracePromise does (start, end
 * once the call is under way, then error on a rejection, asyncStart and asyncEnd once it
 * settled) but with the context's `result` never set: a call's value may hold a gateway
 * answer, and only `outcome` / `resultCode` (filled by `settle`) describe it.
 */
export async function traced<T>(
  context: GatewayCallContext,
  work: () => Promise<T>,
  settle: (context: GatewayCallContext, value: T) => void,
): Promise<T> {
  const c = gatewayCallChannel;
  c.start.publish(context);
  let promise: Promise<T>;
  try {
    promise = work();
  } catch (err) {
    context.error = err;
    c.error.publish(context);
    c.end.publish(context);
    throw err;
  }
  c.end.publish(context);
  try {
    const value = await promise;
    settle(context, value);
    c.asyncStart.publish(context);
    c.asyncEnd.publish(context);
    return value;
  } catch (err) {
    context.error = err;
    context.outcome ??= 'unknown';
    c.error.publish(context);
    c.asyncStart.publish(context);
    c.asyncEnd.publish(context);
    throw err;
  }
}
