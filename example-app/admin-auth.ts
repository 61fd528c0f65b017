/**
 * The back office's guard: a login with a session cookie (express-session), a
 * synchronizer CSRF token on every state-changing form (csrf-sync), and an audit log line per
 * money-moving action. Everything under `/admin` goes through {@link adminGuard}; the payment
 * return (`/pay/return`) and the gateway's notifications are mounted outside it, because the
 * gateway and the buyer's browser post to them without any session.
 *
 * Cookie: `HttpOnly`, `SameSite=Strict` (a cross-site form never carries it), `Path=/admin`,
 * and `Secure` whenever the request came over HTTPS (`secure: 'auto'`; behind a TLS-terminating
 * proxy set `TRUST_PROXY=1` so Express sees `X-Forwarded-Proto`). Sessions live in memory
 * (admin-sessions.ts): one process, lost on restart, which is what an example needs; a real
 * shop plugs a shared store.
 */
import express, { type Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { shopRouter } from './routes/router.js';
import { rateLimit } from 'express-rate-limit';
import session from 'express-session';
import { csrfSync } from 'csrf-sync';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Logger } from '../src/index.js';
import { AdminSessionStore } from './admin-sessions.js';
import { sendRefusedPost } from './error-page.js';
import { html, sendPage, type SafeHtml } from './views.js';

declare module 'express-session' {
  interface SessionData {
    /** The signed-in back-office user. */
    admin?: string;
  }
}

/** Back-office credentials, normalised by {@link adminCredentials}. */
export interface AdminCredentials {
  user: string;
  password: string;
  /** True when the password was generated here (server.ts prints it once). */
  generated: boolean;
}

/** Options of the back-office login (ShopOptions.admin). */
export interface AdminOptions {
  /** Login name. @default 'admin' */
  user?: string;
  /** Password; when absent a one-time random password is generated per process. */
  password?: string;
  /** Signs the session cookie. @default random per process (sessions end on restart) */
  sessionSecret?: string;
}

/** Checks and completes the admin options; errors name the option. */
export function adminCredentials(options: AdminOptions = {}): AdminCredentials {
  const user = options.user ?? 'admin';
  if (typeof user !== 'string' || !/^[\w.@-]{1,64}$/.test(user))
    throw new Error('option admin.user must be 1-64 letters, digits or ._@-');
  if (options.password !== undefined && (typeof options.password !== 'string' || options.password.length < 12)) {
    throw new Error('option admin.password must be at least 12 characters (ADMIN_PASSWORD)');
  }
  const password = options.password ?? randomBytes(12).toString('base64url');
  return { user, password, generated: options.password === undefined };
}

/** Constant-time comparison of two strings (hashed first so lengths do not leak). */
function sameSecret(a: string, b: string): boolean {
  const h = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(h(a), h(b));
}

const CSRF_FIELD = '_csrf';

/** Login attempts that failed, per client address and window, before further ones are refused unchecked. */
export const LOGIN_FAILURES_PER_WINDOW = 10;
/** The window of {@link LOGIN_FAILURES_PER_WINDOW}. */
export const LOGIN_WINDOW_MS = 60_000;

/**
 * Password guessing is bounded (express-rate-limit): after {@link LOGIN_FAILURES_PER_WINDOW}
 * failed logins from one address within a minute, further attempts are answered 429 without
 * the password being compared, whatever it is. Only failures count (a 4xx answer), so an
 * operator who signs in is never locked out by their own successes. Behind a proxy, set
 * `trust proxy` so that `req.ip` is the client's address and not the proxy's.
 */
function loginLimiter(logger: Logger): RequestHandler {
  return rateLimit({
    windowMs: LOGIN_WINDOW_MS,
    limit: LOGIN_FAILURES_PER_WINDOW,
    skipSuccessfulRequests: true,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    handler: (req, res) => {
      logger.warn(
        { audit: true, action: 'login.limited', ip: req.ip },
        'back office: login refused unchecked (too many failures)',
      );
      sendPage(
        res,
        429,
        '로그인 제한',
        html`<h1 class="status-error">로그인 시도가 너무 많습니다</h1>
<p id="login-limited">잠시(1분) 후 다시 시도해 주세요. 이번 시도는 확인하지 않았습니다.</p>`,
      );
    },
  });
}

/** Views of the login page one client may ask for in {@link LOGIN_WINDOW_MS}. */
export const LOGIN_VIEWS_PER_WINDOW = 30;

/**
 * Each view of the login page keeps a session for its CSRF token, and the sessions of visitors
 * not signed in are bounded (admin-sessions.ts, the oldest dropped first): so that one client
 * cannot push an operator's form out by asking for the page, it may view it only
 * {@link LOGIN_VIEWS_PER_WINDOW} times a minute (429 past that, and no session kept).
 */
function loginPageLimiter(logger: Logger): RequestHandler {
  return rateLimit({
    windowMs: LOGIN_WINDOW_MS,
    limit: LOGIN_VIEWS_PER_WINDOW,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    handler: (req, res) => {
      logger.warn({ audit: true, action: 'login-page.limited', ip: req.ip }, 'back office: login page asked too often');
      sendPage(
        res,
        429,
        '잠시 후 다시 시도해 주세요',
        html`<h1 class="status-error">요청이 너무 많습니다</h1>
<p id="login-limited">잠시(1분) 후 다시 시도해 주세요.</p>`,
      );
    },
  });
}

/** The hidden CSRF input every back-office POST form carries. */
export function csrfInput(req: Request): SafeHtml {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${req.csrfToken?.() ?? ''}">`;
}

/** The signed-in user (for audit lines); only called behind the guard. */
export const adminUser = (req: Request): string => req.session.admin ?? '?';

/**
 * One audit line per money-moving back-office action: who, what, to whom, how much, the
 * outcome. Never a secret (no key, no account password, no token).
 */
export function audit(logger: Logger, req: Request, action: string, details: Record<string, unknown>): void {
  logger.info({ audit: true, user: adminUser(req), ip: req.ip, action, ...details }, `back office: ${action}`);
}

/** Only relative back-office paths are followed after login (no open redirect). */
const safeNext = (next: unknown): string =>
  typeof next === 'string' && /^\/admin(\/[\w\-/]*)?(\?[\w=&%.-]*)?$/.test(next) && !next.startsWith('/admin/login')
    ? next
    : '/admin';

function loginPage(req: Request, res: Response, status: number, next: string, error?: string): void {
  sendPage(
    res,
    status,
    '관리자 로그인',
    html`<h1>관리자 로그인</h1>
${error && html`<p id="login-error" class="card status-error">${error}</p>`}
<form id="login-form" class="card" method="post" action="/admin/login">${csrfInput(req)}
<input type="hidden" name="next" value="${next}">
<label>아이디 <input type="text" name="user" id="login-user" autocomplete="username" required></label>
<label>비밀번호 <input type="password" name="password" id="login-password" autocomplete="current-password" required></label>
<div class="actions"><button type="submit" id="login-submit">로그인</button></div></form>`,
  );
}

/**
 * The guard in front of every back-office route: session, form body, CSRF check for POST,
 * `/admin/login` and `/admin/logout`, then a redirect to the login page for anyone not signed
 * in. Mount it at `/admin` before the back-office routers.
 */
export function adminGuard(creds: AdminCredentials, logger: Logger, sessionSecret?: string): Router {
  const router = shopRouter();
  router.use(
    session({
      name: 'shop.admin.sid',
      store: new AdminSessionStore(),
      secret: sessionSecret ?? randomBytes(32).toString('hex'),
      resave: false,
      saveUninitialized: false,
      cookie: { httpOnly: true, sameSite: 'strict', secure: 'auto', path: '/admin', maxAge: 8 * 3_600_000 },
    }),
  );
  // The back office's forms are UTF-8; the body is parsed here so the CSRF check can read it.
  router.use(express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 20 }));
  const { csrfSynchronisedProtection } = csrfSync({
    getTokenFromRequest: (req) => {
      const v = (req.body as Record<string, unknown> | undefined)?.[CSRF_FIELD];
      return typeof v === 'string' ? v : undefined;
    },
  });
  router.use(csrfSynchronisedProtection);

  router.get('/login', loginPageLimiter(logger), (req, res) => {
    if (req.session.admin) return res.redirect(303, safeNext(req.query.next));
    loginPage(req, res, 200, safeNext(req.query.next));
  });

  router.post('/login', loginLimiter(logger), (req, res, next) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const user = typeof body.user === 'string' ? body.user : '';
    const password = typeof body.password === 'string' ? body.password : '';
    const target = safeNext(body.next);
    if (!(sameSecret(user, creds.user) && sameSecret(password, creds.password))) {
      logger.warn({ audit: true, action: 'login.refused', ip: req.ip }, 'back office: login refused');
      // A new CSRF token after each failure: one token is not good for a series of guesses.
      req.csrfToken?.(true);
      return loginPage(req, res, 401, target, '아이디 또는 비밀번호가 올바르지 않습니다.');
    }
    // A new session id at login: a session id planted before login is worthless.
    req.session.regenerate((err) => {
      if (err) return next(err);
      req.session.admin = creds.user;
      logger.info({ audit: true, action: 'login', user: creds.user, ip: req.ip }, 'back office: login');
      req.session.save((err2) => (err2 ? next(err2) : res.redirect(303, target)));
    });
  });

  router.post('/logout', (req, res, next) => {
    const user = req.session.admin;
    req.session.destroy((err) => {
      if (err) return next(err);
      if (user) logger.info({ audit: true, action: 'logout', user, ip: req.ip }, 'back office: logout');
      res.clearCookie('shop.admin.sid', { path: '/admin' });
      res.redirect(303, '/admin/login');
    });
  });

  const requireLogin: RequestHandler = (req, res) => {
    if (req.method === 'GET' || req.method === 'HEAD') {
      res.redirect(303, `/admin/login?next=${encodeURIComponent(req.originalUrl)}`);
      return;
    }
    sendPage(
      res,
      401,
      '로그인 필요',
      html`<h1 class="status-error">로그인이 필요합니다</h1>
<p id="admin-error">관리자 로그인 후 다시 시도해 주세요. 아무것도 처리하지 않았습니다.</p><p><a class="button" href="/admin/login">로그인</a></p>`,
    );
  };
  router.use((req, res, next) => (req.session.admin ? next() : requireLogin(req, res, next)));

  // A missing or wrong token: a clear page, and nothing was done.
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if ((err as { code?: string })?.code !== 'EBADCSRFTOKEN') return next(err);
    logger.warn(
      { audit: true, action: 'csrf.refused', path: _req.originalUrl, ip: _req.ip },
      'back office: form without a valid CSRF token refused',
    );
    sendRefusedPost(res, { href: '/admin', label: '관리자 화면으로' });
  });
  return router;
}
