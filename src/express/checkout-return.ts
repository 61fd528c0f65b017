import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { createCheckoutClient } from '../approval/checkout-client.js';
import type { CheckoutOptions } from '../approval/checkout-options.js';
import type { ClientContext } from '../context.js';
import { withStackText } from '../errors/stack-text.js';
import type { ApprovalResult } from '../approval/operation.js';
import type { OperationKind } from '../pipeline/index.js';
import type { CheckoutResult } from '../types/checkout.js';
import { readFormBody } from './read-body.js';

/** Options of `nicepay.checkoutReturn()`, set per route; the hooks receive Express's Request. */
export type CheckoutReturnOptions = CheckoutOptions<Request>;

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The verified outcome of the payment window's return, set by `checkoutReturn()`. */
      checkout?: CheckoutResult;
    }
  }
}

/**
 * The return-route middleware of interface A: reads the raw body (the client decodes it by
 * the window's charset), hands it to the checkout client, and sets `req.checkout` or passes
 * the NicepayError to `next(err)`.
 */
export function checkoutReturn(
  ctx: ClientContext,
  kind: OperationKind<ApprovalResult>,
  options: CheckoutReturnOptions,
): RequestHandler {
  const client = createCheckoutClient<Request>(ctx, kind, options);
  return function nicepayCheckoutReturn(req: Request, _res: Response, next: NextFunction): void {
    readFormBody(req, client, 'checkoutReturn')
      .then(({ bytes, charset }) => client.complete(bytes, charset, req))
      .then(
        (result) => {
          req.checkout = result;
          next();
        },
        // The shop's own hooks may throw too: whatever is passed on keeps no frames of this request.
        (err: unknown) => next(withStackText(err)),
      );
  };
}
