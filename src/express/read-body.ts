import type { Request } from 'express';
import getRawBody from 'raw-body';
import type { CheckoutClient } from '../approval/checkout-client.js';
import { NicepayRequestError, NicepayServiceError } from '../errors/index.js';

/** The raw form bytes and the charset the client will decode them by. */
export interface FormBody {
  bytes: Buffer;
  charset: ReturnType<CheckoutClient['bodyCharset']>;
}

/** The middleware reading the body, named in the setup error so the shop moves the right one. */
export type BodyRoute = 'checkoutReturn' | 'notifications';

/**
 * Reads a form body itself, like body-parser's read(): the client judges the Content-Type
 * first (415), then the body is read with its limit (413), mapping raw-body's error types to
 * ours. It must see the raw bytes: a body already consumed by another parser is a setup
 * mistake, reported as such (naming `route`, the middleware that was mounted too late) rather
 * than as a confusing empty form.
 */
export async function readFormBody(
  req: Request,
  client: Pick<CheckoutClient, 'bodyCharset' | 'limit'>,
  route: BodyRoute,
): Promise<FormBody> {
  // Every request of an Express app has a hidden class of its own (it sets each request's
  // prototype), so each property read on `req` is a runtime lookup: the headers are read once,
  // and a body another parser consumed is recognised from raw-body's own "not readable" answer
  // rather than probed up front.
  const headers = req.headers;
  const charset = client.bodyCharset(headers['content-type'], headers['content-encoding']);
  try {
    const bytes = await getRawBody(req, { limit: client.limit, length: headers['content-length'] });
    return { bytes, charset };
  } catch (err) {
    const type = (err as { type?: string }).type;
    if (type === 'stream.not.readable' && ((req as { _body?: boolean })._body === true || req.readableEnded)) {
      throw new NicepayServiceError(
        'NICEPAY_BODY_ALREADY_PARSED',
        `the request body was already read by another body parser; mount ${route}() before express.urlencoded() ` +
          '(or exclude its route) so it can decode the EUC-KR bytes itself',
      );
    }
    if (type === 'entity.too.large') {
      throw new NicepayRequestError(
        'NICEPAY_BODY_TOO_LARGE',
        `request body is larger than the limit of ${client.limit} bytes`,
        undefined,
        err,
      );
    }
    throw new NicepayRequestError(
      'NICEPAY_BODY_MALFORMED',
      `request body could not be read (${type ?? 'stream error'})`,
      undefined,
      err,
    );
  }
}
