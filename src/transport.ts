import { Agent, request } from 'undici';

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
    /** False only when the request provably never left (connect failure). */
    readonly sent: boolean,
    message: string,
    readonly statusCode?: number,
  ) {
    super(message);
  }
}

/** A raw response: bytes and status; decoding is the caller's, by the charset it asked for. */
export interface TransportResponse {
  statusCode: number;
  body: Buffer;
}

/** One undici Agent and the calls made through it. */
export interface Transport {
  post(url: URL, body: Buffer | string, contentType: string): Promise<TransportResponse>;
  close(): Promise<void>;
}

const CONNECT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
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

  return {
    async post(url, body, contentType) {
      if (closed) throw new TransportError('closed', false, 'transport is closed');
      // An overall deadline, cleared as soon as the call settles. (AbortSignal.timeout would
      // keep a timer and its signal alive for the whole 35 s after every call.)
      const controller = new AbortController();
      const timer = setTimeout(
        () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
        options.connectMs + options.responseMs,
      );
      try {
        const res = await request(url, {
          method: 'POST',
          dispatcher: agent,
          body,
          headers: { 'content-type': contentType },
          signal: controller.signal,
        });
        const body_ = Buffer.from(await res.body.arrayBuffer());
        if (res.statusCode < 200 || res.statusCode > 299) {
          throw new TransportError('status', true, `gateway answered HTTP ${res.statusCode}`, res.statusCode);
        }
        return { statusCode: res.statusCode, body: body_ };
      } catch (err) {
        throw classify(err, url);
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      closed = true;
      await agent.close();
    },
  };
}

function classify(err: unknown, url: URL): TransportError {
  if (err instanceof TransportError) return err;
  const e = err as { code?: string; name?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code ?? e.name ?? '';
  const where = `${url.protocol}//${url.host}${url.pathname}`;
  if (CONNECT_CODES.has(code)) return new TransportError('connect', false, `could not connect to ${where} (${code})`);
  if (TIMEOUT_CODES.has(code) || e.name === 'TimeoutError' || e.name === 'AbortError') {
    return new TransportError('timeout', true, `no complete answer from ${where} in time (${code})`);
  }
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') return new TransportError('too-large', true, `answer from ${where} is larger than allowed`);
  return new TransportError('reset', true, `connection to ${where} failed after sending (${code || 'unknown'})`);
}
