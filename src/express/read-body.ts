import type { Request } from 'express';
import { NicepayRequestError } from '../errors/index.js';
import { type Charset, normalizeCharset } from '../wire/charset.js';

/** Options of {@link readFormBody}. */
export interface ReadBodyOptions {
  /** Largest body accepted, in bytes. */
  limit: number;
  /** Charset when the Content-Type names none (the gateway's default is EUC-KR). */
  defaultCharset: Charset;
}

/** The raw form bytes and the charset they are in. */
export interface FormBody {
  bytes: Buffer;
  charset: Charset;
}

/**
 * Reads a form body itself, like body-parser's read(): checks the media type and charset
 * first (415), then reads with a limit (413); a broken or short body is 400. It must
 * see the raw bytes: a body already consumed by another parser is a setup mistake, reported
 * as such rather than as a confusing empty form.
 */
export async function readFormBody(req: Request, options: ReadBodyOptions): Promise<FormBody> {
  const alreadyParsed = (req as { _body?: boolean })._body === true || req.readableEnded;
  if (alreadyParsed) {
    throw new NicepayRequestError(
      'NICEPAY_BODY_ALREADY_PARSED',
      'the request body was already read by another body parser; mount checkoutReturn before express.urlencoded() ' +
        '(or exclude its route) so it can decode the EUC-KR bytes itself',
      500,
    );
  }
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new NicepayRequestError('NICEPAY_CONTENT_TYPE_UNSUPPORTED', `unsupported content type ${JSON.stringify(type.slice(0, 60))}; expected application/x-www-form-urlencoded`, 415);
  }
  const charsetParam = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(req.headers['content-type'] ?? '')?.[2];
  const charset = charsetParam === undefined ? options.defaultCharset : normalizeCharset(charsetParam);
  if (!charset) {
    throw new NicepayRequestError('NICEPAY_CHARSET_UNSUPPORTED', `unsupported charset ${JSON.stringify(charsetParam!.slice(0, 40))}; expected euc-kr or utf-8`, 415);
  }
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity') {
    throw new NicepayRequestError('NICEPAY_CONTENT_TYPE_UNSUPPORTED', `unsupported content encoding ${JSON.stringify(encoding.slice(0, 40))}`, 415);
  }
  const length = parseContentLength(req.headers['content-length']);
  if (length !== null && length > options.limit) {
    // Like raw-body: refused before reading; the stream is paused, not drained.
    req.unpipe();
    req.pause();
    throw tooLarge(options.limit);
  }
  if (req.readable === false) throw malformed('stream.not.readable');
  const bytes = await readStream(req, length, options.limit);
  return { bytes, charset };
}

const tooLarge = (limit: number): NicepayRequestError =>
  new NicepayRequestError('NICEPAY_BODY_TOO_LARGE', `request body is larger than the limit of ${limit} bytes`, 413);
const malformed = (type: string, cause?: unknown): NicepayRequestError =>
  new NicepayRequestError('NICEPAY_BODY_MALFORMED', `request body could not be read (${type})`, 400, undefined, cause);

/** Content-Length as raw-body reads it (parseInt), or null when absent or not a number. */
function parseContentLength(value: string | undefined): number | null {
  if (value === undefined) return null;
  const n = parseInt(value, 10);
  return Number.isNaN(n) ? null : n;
}

/**
 * Reads the whole body, as raw-body did (same checks, same outcomes): more than `limit` bytes
 * is 413; an abort, a stream error or a size that differs from Content-Length is 400. On an
 * error the request is unpiped and paused, and every listener added here is removed. Written
 * out instead of raw-body: one state object per request instead of its closures, argument
 * copies, nextTick hop and AsyncResource.
 */
function readStream(req: Request, length: number | null, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    new BodyReader(req, length, limit, resolve, reject).start();
  });
}

class BodyReader {
  private received = 0;
  private chunks: Buffer[] = [];
  private complete = false;
  private readonly onData = (chunk: Buffer): void => this.data(chunk);
  private readonly onEnd = (err?: unknown): void => this.end(err);
  private readonly onAborted = (): void => this.fail(malformed('request.aborted'));
  private readonly onClose = (): void => this.cleanup();

  constructor(
    private readonly req: Request,
    private readonly length: number | null,
    private readonly limit: number,
    private readonly resolve: (b: Buffer) => void,
    private readonly reject: (e: unknown) => void,
  ) {}

  start(): void {
    const req = this.req;
    req.on('aborted', this.onAborted);
    req.on('close', this.onClose);
    req.on('data', this.onData);
    req.on('end', this.onEnd);
    req.on('error', this.onEnd);
  }

  private data(chunk: Buffer): void {
    if (this.complete) return;
    this.received += chunk.length;
    if (this.received > this.limit) this.fail(tooLarge(this.limit));
    else this.chunks.push(chunk);
  }

  private end(err?: unknown): void {
    if (this.complete) return;
    if (err) {
      const type = (err as { type?: string }).type;
      this.fail(malformed(type ?? 'stream error', err));
      return;
    }
    if (this.length !== null && this.received !== this.length) {
      this.fail(malformed('request.size.invalid'));
      return;
    }
    this.complete = true;
    const chunks = this.chunks;
    this.cleanup();
    this.resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
  }

  private fail(err: NicepayRequestError): void {
    this.complete = true;
    this.cleanup();
    this.req.unpipe();
    this.req.pause();
    this.reject(err);
  }

  private cleanup(): void {
    this.chunks = [];
    const req = this.req;
    req.removeListener('aborted', this.onAborted);
    req.removeListener('data', this.onData);
    req.removeListener('end', this.onEnd);
    req.removeListener('error', this.onEnd);
    req.removeListener('close', this.onClose);
  }
}
