import type { Request } from 'express';
import getRawBody from 'raw-body';
import { NicepayRequestError } from '../errors/index.js';
import { type Charset, normalizeCharset } from '../wire/charset.js';

/** Options of {@link readFormBody}. */
export interface ReadBodyOptions {
  /** Largest body accepted, in bytes. */
  limit: number;
  /** Charset when the Content-Type names none (the gateway's default is EUC-KR). */
  defaultCharset: Charset;
}

/** The charset parameter of a Content-Type, quoted or not. */
const CHARSET_PARAM = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i;

/** The raw form bytes and the charset they are in. */
export interface FormBody {
  bytes: Buffer;
  charset: Charset;
}

/**
 * Reads a form body itself, like body-parser's read(): checks the media type and charset
 * first (415), then reads with a limit (413), mapping raw-body's error types to ours. It must
 * see the raw bytes: a body already consumed by another parser is a setup mistake, reported
 * as such rather than as a confusing empty form.
 */
export async function readFormBody(req: Request, options: ReadBodyOptions): Promise<FormBody> {
  // Every request of an Express app has a hidden class of its own (it sets each request's
  // prototype), so each property read on `req` is a runtime lookup (bench/RESULTS.md, "Counting
  // instructions"): the headers are read once, and a body another parser consumed is recognised
  // from raw-body's own "not readable" answer rather than probed up front.
  const headers = req.headers;
  const contentType = headers['content-type'] ?? '';
  const semicolon = contentType.indexOf(';');
  const type = (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new NicepayRequestError('NICEPAY_CONTENT_TYPE_UNSUPPORTED', `unsupported content type ${JSON.stringify(type.slice(0, 60))}; expected application/x-www-form-urlencoded`, 415);
  }
  const charsetParam = semicolon === -1 ? undefined : CHARSET_PARAM.exec(contentType)?.[2];
  const charset = charsetParam === undefined ? options.defaultCharset : normalizeCharset(charsetParam);
  if (!charset) {
    throw new NicepayRequestError('NICEPAY_CHARSET_UNSUPPORTED', `unsupported charset ${JSON.stringify(charsetParam!.slice(0, 40))}; expected euc-kr or utf-8`, 415);
  }
  const encoding = (headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity') {
    throw new NicepayRequestError('NICEPAY_CONTENT_TYPE_UNSUPPORTED', `unsupported content encoding ${JSON.stringify(encoding.slice(0, 40))}`, 415);
  }
  try {
    const bytes = await getRawBody(req, { limit: options.limit, length: headers['content-length'] });
    return { bytes, charset };
  } catch (err) {
    const type_ = (err as { type?: string }).type;
    if (type_ === 'stream.not.readable' && ((req as { _body?: boolean })._body === true || req.readableEnded)) {
      throw new NicepayRequestError(
        'NICEPAY_BODY_ALREADY_PARSED',
        'the request body was already read by another body parser; mount checkoutReturn before express.urlencoded() ' +
          '(or exclude its route) so it can decode the EUC-KR bytes itself',
        500,
      );
    }
    if (type_ === 'entity.too.large') {
      throw new NicepayRequestError('NICEPAY_BODY_TOO_LARGE', `request body is larger than the limit of ${options.limit} bytes`, 413, undefined, err);
    }
    throw new NicepayRequestError('NICEPAY_BODY_MALFORMED', `request body could not be read (${type_ ?? 'stream error'})`, 400, undefined, err);
  }
}
