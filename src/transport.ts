import { Agent, type Dispatcher } from 'undici';
import { withStackText } from './errors/stack-text.js';

/** Timeouts of the outbound calls, in milliseconds. */
export interface Timeouts {
  /** TCP + TLS connect. @default 5000 (the gateway's newer guidance) */
  connectMs?: number;
  /** From the request being sent until the whole response has arrived. @default 30000 */
  responseMs?: number;
}

/** Options of {@link createTransport}. */
export interface TransportOptions {
  connectMs: number;
  responseMs: number;
  /** Largest response body accepted. */
  maxResponseBytes: number;
}

/** Why a call produced no usable response. `sent` says whether the gateway may have acted. */
export type TransportFailureKind = 'connect' | 'timeout' | 'reset' | 'status' | 'too-large' | 'closed';

/** A failed call. Carries no request body (it may hold signed fields). */
export class TransportError extends Error {
  override readonly name = 'TransportError';
  constructor(
    readonly kind: TransportFailureKind,
    /** False only when the request provably never left: undici never began to write it. */
    readonly sent: boolean,
    message: string,
    readonly statusCode?: number,
  ) {
    super(message);
    // Its frames are undici's, holding the request and its body (signed fields, a BID).
    withStackText(this);
  }
}

/** A raw response: bytes and status; decoding is the caller's, by the charset it asked for. */
export interface TransportResponse {
  statusCode: number;
  body: Buffer;
}

/** One undici Agent and the calls made through it. */
export interface Transport {
  /** POSTs `body`; resolves with a 2xx answer's bytes, rejects with a {@link TransportError}. */
  post(url: URL, body: Buffer | string, contentType: string): Promise<TransportResponse>;
  /** Refuses new calls and closes the connections once the calls in flight end; safe to call twice. */
  close(): Promise<void>;
}

const CONNECT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_ABORTED', 'ABORT_ERR']);

/**
 * Creates the transport: a keep-alive undici Agent with connect and response timeouts and a
 * response size limit. The response Content-Type is ignored on purpose (the gateway answers
 * JSON as text/html); callers decode by what they asked for.
 */
export function createTransport(options: TransportOptions): Transport {
  const agent = new Agent({
    connect: { timeout: options.connectMs },
    headersTimeout: options.responseMs,
    bodyTimeout: options.responseMs,
    maxResponseSize: options.maxResponseBytes,
    keepAliveTimeout: 4_000,
  });
  let closed = false;
  let closing: Promise<void> | undefined;

  return {
    post(url, body, contentType) {
      if (closed) return Promise.reject(new TransportError('closed', false, 'transport is closed'));
      return new Promise((resolve, reject) => {
        const call = new PostCall(url, resolve, reject);
        // An overall deadline on top of undici's connect / headers / body timeouts, so a
        // gateway that trickles its answer cannot hold the call open. Cleared on settling.
        call.timer = setTimeout(() => call.expire(), options.connectMs + options.responseMs);
        try {
          agent.dispatch(
            {
              origin: url.origin,
              path: url.pathname + url.search,
              method: 'POST',
              body,
              headers: { 'content-type': contentType },
            },
            call,
          );
        } catch (err) {
          call.error(err); // undici reports errors through the handler; this is a backstop
        }
      });
    },
    close() {
      closed = true;
      closing ??= agent.close();
      return closing;
    },
  };
}

/**
 * One POST as an undici dispatch handler: collects the answer's bytes and settles once.
 * (undici's `request()` would wrap the answer in a Readable stream and need an
 * AbortController for the deadline; a handler gets the abort controller directly.)
 */
class PostCall implements Dispatcher.DispatchHandler {
  timer: NodeJS.Timeout | undefined;
  private controller: Dispatcher.DispatchController | undefined;
  /**
   * Set when undici hands over its controller, which it does just before writing the request
   * (and skips the write if the call was aborted there). Until then nothing was sent.
   */
  private started = false;
  private statusCode = 0;
  private chunks: Buffer[] = [];
  private settled = false;

  constructor(
    private readonly url: URL,
    private readonly resolve: (res: TransportResponse) => void,
    private readonly reject: (err: TransportError) => void,
  ) {}

  /** The deadline passed: abort (or, not started yet, abort as soon as it starts). */
  expire(): void {
    const err = new TransportError(
      'timeout',
      this.started,
      `no complete answer from ${where(this.url)} in time (deadline)`,
    );
    this.controller?.abort(err);
    this.fail(err);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // The deadline already passed (and was reported as not sent): abort before the write.
    if (this.settled)
      controller.abort(new TransportError('timeout', false, 'deadline passed before the request started'));
    else this.started = true;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.statusCode = statusCode; // the last one wins over any 1xx
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.settled) return;
    const { statusCode } = this;
    if (statusCode < 200 || statusCode > 299) {
      this.fail(new TransportError('status', true, `gateway answered HTTP ${statusCode}`, statusCode));
      return;
    }
    this.settle();
    this.resolve({ statusCode, body: this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks) });
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.error(err);
  }

  /** Settles with `err` as a TransportError, sent or not by whether the request started. */
  error(err: unknown): void {
    this.fail(classify(err, this.url, this.started));
  }

  private fail(err: TransportError): void {
    if (this.settled) return;
    this.settle();
    this.reject(err);
  }

  private settle(): void {
    this.settled = true;
    clearTimeout(this.timer);
  }
}

const where = (url: URL): string => `${url.protocol}//${url.host}${url.pathname}`;

function classify(err: unknown, url: URL, started: boolean): TransportError {
  if (err instanceof TransportError) return err;
  const e = err as { code?: string; name?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code ?? e.name ?? '';
  const at = where(url);
  if (!started) {
    return CONNECT_CODES.has(code)
      ? new TransportError('connect', false, `could not connect to ${at} (${code})`)
      : new TransportError('reset', false, `request to ${at} failed before it was sent (${code || 'unknown'})`);
  }
  if (TIMEOUT_CODES.has(code) || e.name === 'TimeoutError' || e.name === 'AbortError') {
    return new TransportError('timeout', true, `no complete answer from ${at} in time (${code})`);
  }
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE')
    return new TransportError('too-large', true, `answer from ${at} is larger than allowed`);
  return new TransportError('reset', true, `connection to ${at} failed after sending (${code || 'unknown'})`);
}
