/**
 * What a back-office action says on the page it redirects to (post/redirect/get), kept in the
 * operator's session and said once. Never in the URL: a link anyone can write must not show an
 * operator "refunded 23,000 won" or a made-up payout number.
 */
import type { Request, Response } from 'express';

/** A line for the top of the next page: what was done, or what went wrong. */
export interface AdminNotice {
  ok?: string;
  error?: string;
}

declare module 'express-session' {
  interface SessionData {
    /** The notice the last action left for the next page. */
    notice?: AdminNotice;
  }
}

/** Redirects (303) to `location`, whose page then says `notice` once. */
export function redirectWithNotice(req: Request, res: Response, location: string, notice: AdminNotice): void {
  req.session.notice = notice;
  res.redirect(303, location);
}

/** The notice the last action left for this page, if any; it is said only once. */
export function takeNotice(req: Request): AdminNotice {
  const notice = req.session.notice ?? {};
  delete req.session.notice;
  return notice;
}
