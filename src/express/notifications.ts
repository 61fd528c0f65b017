import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { ClientContext } from '../context.js';
import { isNicepayError } from '../errors/index.js';
import { withStackText } from '../errors/stack-text.js';
import { createNoticeHandler, noticeBodyCharset } from '../notify/handler.js';
import { resolveNotificationsOptions } from '../notify/options.js';
import type { NotificationsOptions } from '../notify/types.js';
import { readFormBody } from './read-body.js';

/**
 * The route the gateway posts payment notifications to (결제데이터통보). It hands the source
 * address and a reader of the raw body (mount it before any body parser) to the notifications
 * client and writes its answer: exactly `OK`, or `FAIL` with a 4xx/5xx status. It always
 * answers: nothing follows it (a setup mistake, such as a body already parsed, goes to next).
 */
export function notifications(ctx: ClientContext, options: NotificationsOptions): RequestHandler {
  const opts = resolveNotificationsOptions(options);
  const handle = createNoticeHandler(ctx, opts);
  return function nicepayNotifications(req: Request, res: Response, next: NextFunction): void {
    handle({
      socketAddress: req.socket.remoteAddress,
      forwardedFor: opts.proxyHops > 0 ? String(req.headers['x-forwarded-for'] ?? '') : undefined,
      // Read only after the source address was accepted.
      body: async () =>
        (await readFormBody(req, { limit: opts.limit, bodyCharset: noticeBodyCharset }, 'notifications')).bytes,
    }).then(
      (answer) => {
        res.status(answer.status).type('text/plain').send(answer.body);
      },
      (err: unknown) => {
        // A body that could not be read (wrong type, too large) is a refusal like any other.
        if (isNicepayError(err) && err.status < 500) {
          ctx.config.logger.warn(
            { step: 'notice', outcome: 'malformed', error: err.code },
            'notice refused: body unreadable',
          );
          res.status(err.status).type('text/plain').send('FAIL');
          return;
        }
        next(withStackText(err));
      },
    );
  };
}
