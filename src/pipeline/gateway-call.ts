import type { ClientContext } from '../context.js';
import { NicepayGatewayError, NicepayServiceError } from '../errors/index.js';
import { withStackText } from '../errors/stack-text.js';
import { silentLogger } from '../logger.js';
import type { TransportError } from '../transport.js';
import { ownCopy } from '../own-copy.js';
import { type GatewayCallContext, traced, tracing } from './diagnostics.js';
import type { CallIds, CallOutcome, GatewayOperation } from './operations.js';
import { asTransportError, transportOutcome } from './transport-failure.js';

/** The signed request a flow builds: the body in its wire encoding and its Content-Type. */
export interface OutboundRequest {
  body: Buffer | string;
  contentType: string;
}

/** What a flow's value says about its call, for the log line and the diagnostics context. */
export interface CallReport {
  outcome: CallOutcome;
  resultCode?: string | undefined;
}

/**
 * One call to the gateway, as a flow declares it: its request, the meaning of its answer and
 * of a lost answer. Everything else (shutdown, tracking, posting, classifying the transport
 * failure, logging, diagnostics) is the pipeline's, done once in {@link callGateway}.
 */
export interface GatewayCall<T> {
  /** Which call this is (log lines and diagnostics name it). */
  operation: GatewayOperation;
  /** `web`: approval host (interfaces A, B, cancel, status); `data`: data host (C, D). */
  host: 'web' | 'data';
  url: URL;
  /** What the shop reconciles by; the MID is the client's own. Never a secret. */
  ids: Omit<CallIds, 'mid'>;
  /**
   * Builds the signed request; called once, after the shutdown check. May throw a
   * NicepayRequestError (bad input): nothing is sent then.
   */
  request(): OutboundRequest;
  /** The meaning of the answer's bytes (a 2xx answer). May throw a NicepayError. */
  answer(body: Buffer): T;
  /**
   * The meaning of a request sent and then lost: a timeout, a reset, an answer too large or an
   * HTTP error status. The gateway may have acted. May throw a NicepayError.
   */
  lost(failure: TransportError): T;
  /**
   * The meaning of a request that provably never left. Default: a NicepayGatewayError
   * NICEPAY_GATEWAY_UNREACHABLE saying nothing changed.
   */
  notSent?(failure: TransportError): T;
  /** What the value says: `outcome` and `resultCode` for the log line and diagnostics. */
  report(value: T): CallReport;
  /**
   * Part of work already admitted ({@link admit}) and tracked (an approval inside its checkout
   * flow, a net cancel after a lost approval, a status inquiry that settles an unknown
   * outcome): neither refused after close() nor tracked again.
   * @default false
   */
  continuation?: boolean;
}

/**
 * The one path of every call the package makes to the gateway, in order: refuse new work
 * after close() (NICEPAY_SHUTTING_DOWN, nothing sent), track the call so close() waits for it,
 * build the flow's signed request, post it on the host's transport, classify a failure once
 * (not sent / sent and lost / answered), let the flow read the answer, log one line without
 * secrets and publish the call on the `express-nicepay:gateway-call` TracingChannel.
 * Run-once by key is the caller's step around it ({@link runFlowOnce}), since a once-key covers
 * a flow's whole work (an approval, its net cancel and its hook), not one call.
 */
export function callGateway<T>(ctx: ClientContext, call: GatewayCall<T>): Promise<T> {
  if (!call.continuation && ctx.isClosing()) {
    return Promise.reject(shuttingDown(`${call.operation} call`));
  }
  let work: Promise<T>;
  if (tracing()) {
    const context: GatewayCallContext = { operation: call.operation, mid: ctx.config.mid, ...definedIds(call.ids) };
    work = traced(
      context,
      () => run(ctx, call, context),
      (c, value) => Object.assign(c, cleanReport(call.report(value))),
    );
  } else {
    work = run(ctx, call, undefined);
  }
  return call.continuation ? work : ctx.track(work);
}

/**
 * Admits one flow's whole work (an approval with its net cancel and hook, a key-in with its
 * hook, a cancel with its status advice): refuses it after close() with NICEPAY_SHUTTING_DOWN
 * (nothing sent) and tracks it so close() waits for all of it. The calls inside are
 * `continuation` calls. `what` names the flow in the message.
 */
export function admit<T>(ctx: ClientContext, what: string, work: () => Promise<T>): Promise<T> {
  if (ctx.isClosing()) return Promise.reject(shuttingDown(what));
  return ctx.track(work());
}

/** The refusal of new work after close(). */
function shuttingDown(what: string): NicepayServiceError {
  return new NicepayServiceError(
    'NICEPAY_SHUTTING_DOWN',
    `server is shutting down: no new ${what} is sent; nothing was sent, retry shortly`,
  );
}

/** The steps after the shutdown check. `context` (when tracing) receives the outcome of a throw. */
async function run<T>(ctx: ClientContext, call: GatewayCall<T>, context: GatewayCallContext | undefined): Promise<T> {
  const { logger } = ctx.config;
  // Whatever a flow's closures throw leaves with its stack made text (the package's own errors
  // make theirs when made; another's, a bug's, here), so it keeps none of what they hold.
  let req: OutboundRequest;
  try {
    req = call.request();
  } catch (err) {
    throw withStackText(err);
  }
  const transport = call.host === 'web' ? ctx.web : ctx.data;
  const started = Date.now();
  let body: Buffer;
  try {
    ({ body } = await transport.post(call.url, req.body, req.contentType));
  } catch (err) {
    const failure = asTransportError(err, `${call.operation} call`);
    const sent = transportOutcome(failure) !== 'not-sent';
    const line = { operation: call.operation, ...definedIds(call.ids), failure: failure.kind };
    let value: T;
    try {
      value = sent ? call.lost(failure) : (call.notSent ?? unreachable(call))(failure);
    } catch (thrown) {
      const report = errorReport(thrown, sent ? 'unknown' : 'not-sent');
      if (context) Object.assign(context, report);
      log(logger, report.outcome, { ...line, ...report, durationMs: Date.now() - started }, call.operation);
      throw withStackText(thrown);
    }
    const report = cleanReport(call.report(value));
    log(logger, report.outcome, { ...line, ...report, durationMs: Date.now() - started }, call.operation);
    return value;
  }
  let value: T;
  try {
    value = call.answer(body);
  } catch (thrown) {
    const report = errorReport(thrown, 'unknown');
    if (context) Object.assign(context, report);
    log(
      logger,
      report.outcome,
      { operation: call.operation, ...definedIds(call.ids), ...report, durationMs: Date.now() - started },
      call.operation,
    );
    throw withStackText(thrown);
  }
  if (logger !== silentLogger) {
    const report = cleanReport(call.report(value));
    log(
      logger,
      report.outcome,
      { operation: call.operation, ...definedIds(call.ids), ...report, durationMs: Date.now() - started },
      call.operation,
    );
  }
  return value;
}

/** The default meaning of a request that never left: unreachable, nothing changed. */
function unreachable<T>(call: GatewayCall<T>): (failure: TransportError) => T {
  return (failure) => {
    throw new NicepayGatewayError(
      'NICEPAY_GATEWAY_UNREACHABLE',
      `${call.operation} call was not sent: ${failure.message}; nothing changed, it may be retried`,
      {
        ...(call.ids.tid !== undefined ? { tid: call.ids.tid } : {}),
        ...(call.ids.moid !== undefined ? { moid: call.ids.moid } : {}),
        cause: failure,
      },
    );
  };
}

/** The outcome of a call whose flow threw: a refusal, or `fallback` when money may have moved. */
function errorReport(err: unknown, fallback: CallOutcome): CallReport {
  const e = err as { outcomeUnknown?: unknown; resultCode?: unknown; resCode?: unknown; code?: unknown };
  const resultCode =
    typeof e.resultCode === 'string' ? e.resultCode : typeof e.resCode === 'string' ? e.resCode : undefined;
  let outcome: CallOutcome = fallback;
  if (e.code === 'NICEPAY_GATEWAY_UNREACHABLE') outcome = 'not-sent';
  else if (e.code === 'NICEPAY_RETRY_LATER') outcome = 'retry';
  else if (e.outcomeUnknown === false) outcome = 'refused';
  return resultCode === undefined ? { outcome } : { outcome, resultCode };
}

/** A report without an undefined resultCode (so a context or log line has no empty member). */
function cleanReport(r: CallReport): CallReport {
  return r.resultCode === undefined ? { outcome: r.outcome } : { outcome: r.outcome, resultCode: r.resultCode };
}

/** The ids that are set, so a log line and a context carry no undefined member. */
function definedIds(ids: Omit<CallIds, 'mid'>): Omit<CallIds, 'mid'> {
  const out: Omit<CallIds, 'mid'> = {};
  // Copies: a subscriber may keep them, and a TID or Moid cut from a posted body would keep it.
  if (ids.tid !== undefined) out.tid = ownCopy(ids.tid);
  if (ids.moid !== undefined) out.moid = ownCopy(ids.moid);
  if (ids.sid !== undefined) out.sid = ownCopy(ids.sid);
  return out;
}

/** One line per call: info when it did or answered something, warn when nothing happened, error when unknown. */
function log(
  logger: ClientContext['config']['logger'],
  outcome: CallOutcome,
  line: Record<string, unknown>,
  operation: GatewayOperation,
): void {
  const msg = `${operation} ${outcome}`;
  if (outcome === 'unknown') logger.error(line, msg);
  else if (outcome === 'not-sent' || outcome === 'retry') logger.warn(line, msg);
  else logger.info(line, msg);
}
