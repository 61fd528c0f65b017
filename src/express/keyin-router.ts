import express, { type NextFunction, type Request, type Response, Router } from 'express';
import { NicepayConfigError, NicepayGatewayError, NicepayRequestError, isNicepayError } from '../errors/index.js';
import type { KeyinClient, KeyinInput, KeyinResult } from '../keyin/types.js';

/** Options of `nicepay.keyinRouter()`. */
export interface KeyinRouterOptions {
  /**
   * Required. The shop's own amount for an order, in won: it is what gets charged. Return
   * undefined (or null) for an unknown Moid: 404 NICEPAY_UNKNOWN_ORDER. A posted `amount`
   * that differs is refused with 400 NICEPAY_AMOUNT_MISMATCH.
   */
  expectedAmount: (moid: string, req: Request) => number | undefined | null | Promise<number | undefined | null>;
  /**
   * Runs once per approved Moid, before `req.keyin` is set; not for duplicates nor declines.
   * Key-in has no net cancel, so if it throws the card stays charged and the request fails
   * with 500 NICEPAY_HOOK_FAILED carrying the TID: record the payment from there.
   */
  onApproved?: (result: KeyinResult & { status: 'approved' }, req: Request) => void | Promise<void>;
  /**
   * Refuse plain-HTTP requests with 403 NICEPAY_INSECURE_TRANSPORT (card data must travel
   * over TLS). Behind a TLS-terminating proxy set Express's `trust proxy` so `req.secure`
   * is true. Set false only for local development and tests. @default true
   */
  requireHttps?: boolean;
  /** Goods name to charge under, instead of the posted `goodsName`. @default the posted goodsName */
  goodsName?: string | ((moid: string, req: Request) => string | Promise<string>);
  /** Largest request body, in bytes. @default 4096 */
  limit?: number;
}

/** The form field each KeyinInput path is posted as, to name fields in errors. */
const FORM_NAMES: ReadonlyArray<[string, string]> = [
  ['card.buyerAuthNum', 'buyerAuthNum'], ['card.password2', 'cardPassword2'], ['card.number', 'cardNumber'],
  ['card.expiry', 'cardExpiry'], ['buyer.name', 'buyerName'], ['buyer.email', 'buyerEmail'], ['buyer.tel', 'buyerTel'],
];

/**
 * The key-in route: `POST /` with moid, amount?, goodsName, cardNumber, cardExpiry,
 * buyerAuthNum?, cardPassword2?, quota?, buyerName?, buyerEmail?, buyerTel? as JSON or
 * urlencoded. Charges `expectedAmount(moid)`, puts the result on `req.keyin` and calls
 * `next()`: mount your own handler after the router to render it. Failures go to
 * `next(err)` as NicepayError. Card data never reaches a log, an error or `req.keyin`.
 */
export function keyinRouter(client: KeyinClient, options: KeyinRouterOptions): Router {
  if (typeof options !== 'object' || options === null) throw new NicepayConfigError('keyinRouter(options)', 'an object');
  if (typeof options.expectedAmount !== 'function') throw new NicepayConfigError('expectedAmount', "a function (moid, req) => the order's amount");
  if (options.onApproved !== undefined && typeof options.onApproved !== 'function') throw new NicepayConfigError('onApproved', 'a function');
  const requireHttps = options.requireHttps ?? true;
  if (typeof requireHttps !== 'boolean') throw new NicepayConfigError('requireHttps', 'a boolean');
  const goodsName = options.goodsName;
  if (goodsName !== undefined && typeof goodsName !== 'string' && typeof goodsName !== 'function') throw new NicepayConfigError('goodsName', 'a string or a function (moid, req) => string');
  const limit = options.limit ?? 4096;
  if (!Number.isSafeInteger(limit) || limit <= 0) throw new NicepayConfigError('limit', 'a positive number of bytes');

  const router = Router();
  const refuseInsecure = (req: Request, _res: Response, next: NextFunction): void => {
    if (requireHttps && !req.secure) next(new NicepayRequestError('NICEPAY_INSECURE_TRANSPORT', 'card key-in is refused over plain HTTP: serve it over HTTPS (behind a proxy, set trust proxy)', 403));
    else next();
  };
  const handle = async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    try {
      const body: unknown = req.body;
      if (typeof body !== 'object' || body === null || Object.keys(body).length === 0) {
        throw new NicepayRequestError('NICEPAY_CONTENT_TYPE_UNSUPPORTED', 'send the key-in as application/json or application/x-www-form-urlencoded', 415);
      }
      const f = body as Record<string, unknown>;
      const moid = field(f, 'moid', true)!;
      const expected = await options.expectedAmount(moid, req);
      if (expected === undefined || expected === null) throw new NicepayRequestError('NICEPAY_UNKNOWN_ORDER', `no order ${moid} is awaiting payment`, 404, 'moid');
      if (!Number.isSafeInteger(expected) || expected <= 0) {
        // The shop's own hook is wrong: not the buyer's fault, so not a 4xx.
        throw new NicepayRequestError('NICEPAY_CONFIG_INVALID', 'expectedAmount must return a positive integer number of won', 500);
      }
      const posted = f.amount;
      if (posted !== undefined && posted !== '' && String(posted) !== String(expected)) {
        throw new NicepayRequestError('NICEPAY_AMOUNT_MISMATCH', `the posted amount differs from the amount of order ${moid}`, 400, 'amount');
      }
      const input: KeyinInput = {
        moid,
        amount: expected,
        goodsName: typeof goodsName === 'function' ? await goodsName(moid, req) : goodsName ?? field(f, 'goodsName', true)!,
        card: {
          number: field(f, 'cardNumber', true)!,
          expiry: field(f, 'cardExpiry', true)!,
          ...optional('buyerAuthNum', field(f, 'buyerAuthNum', false)),
          ...optional('password2', field(f, 'cardPassword2', false)),
        },
        ...optional('quota', field(f, 'quota', false)),
        buyer: { ...optional('name', field(f, 'buyerName', false)), ...optional('email', field(f, 'buyerEmail', false)), ...optional('tel', field(f, 'buyerTel', false)) },
      };
      const result = await client.keyin(input).catch((err: unknown) => { throw renameField(err); });
      if (result.status === 'approved' && !result.duplicate && options.onApproved) {
        try {
          await options.onApproved(result, req);
        } catch (err) {
          throw new NicepayGatewayError('NICEPAY_HOOK_FAILED', `onApproved failed for order ${moid}; the card WAS charged (TID ${result.tid}) and key-in has no net cancel: record or cancel it by hand`, { tid: result.tid, moid, cause: err });
        }
      }
      req.keyin = result;
      next();
    } catch (err) {
      next(err);
    }
  };
  router.post('/', refuseInsecure, express.json({ limit }), express.urlencoded({ extended: false, limit }), safeBodyErrors, handle);
  return router;
}

/** A posted string field; arrays (a repeated key) and objects are refused. */
function field(f: Record<string, unknown>, name: string, required: boolean): string | undefined {
  const v = Object.hasOwn(f, name) ? f[name] : undefined;
  if (v === undefined || v === null || v === '') {
    if (required) throw new NicepayRequestError('NICEPAY_FIELD_INVALID', `${name} is required`, 400, name);
    return undefined;
  }
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v !== 'string') throw new NicepayRequestError('NICEPAY_FIELD_INVALID', `${name} must be a single string value`, 400, name);
  return v;
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

/** Names the posted form field instead of the KeyinInput path in a validation error. */
function renameField(err: unknown): unknown {
  if (!(err instanceof NicepayRequestError) || err.code !== 'NICEPAY_FIELD_INVALID' || !err.field) return err;
  const hit = FORM_NAMES.find(([path]) => path === err.field);
  if (!hit) return err;
  return new NicepayRequestError(err.code, err.message.replace(hit[0], hit[1]), err.status, hit[1]);
}

/**
 * body-parser's errors carry the raw body (`err.body`) and, for JSON, a message quoting it:
 * card data. They are replaced by errors that say only what went wrong.
 */
function safeBodyErrors(err: unknown, _req: Request, _res: Response, next: NextFunction): void {
  if (isNicepayError(err)) return next(err);
  const type = (err as { type?: string } | null)?.type;
  if (type === 'entity.too.large') return next(new NicepayRequestError('NICEPAY_BODY_TOO_LARGE', 'the key-in body is larger than allowed', 413));
  if (type === 'charset.unsupported' || type === 'encoding.unsupported') return next(new NicepayRequestError('NICEPAY_CHARSET_UNSUPPORTED', 'send the key-in body in UTF-8', 415));
  next(new NicepayRequestError('NICEPAY_BODY_MALFORMED', `the key-in body could not be parsed${type ? ` (${type})` : ''}`, 400));
}
