import { createRequire } from 'node:module';
import type { NextFunction, Request, Response, Router } from 'express';
import { NicepayRequestError, isNicepayError, NicepayHookError } from '../errors/index.js';
import { withStackText } from '../errors/stack-text.js';
import type { ApprovedKeyin, KeyinClient, KeyinInput, KeyinResult } from '../keyin/types.js';
import type { HookContext } from '../pipeline/index.js';
import { type ClientContext, registerRouteHook } from '../context.js';
import { type KeyinRouterOptions, resolveKeyinRouterOptions } from './keyin-router-options.js';
import { isObject } from '../util/is-object.js';
import { scrubCardData } from './scrub-card-data.js';
import { jsonNamesKeyTwice } from '../validation/json-text.js';

export type { KeyinRouterOptions } from './keyin-router-options.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by `keyinRouter`: the key-in's result (approved or declined). */
      keyin?: KeyinResult;
    }
  }
}

/** The form field each KeyinInput path is posted as, to name fields in errors. */
const FORM_NAMES: ReadonlyArray<[string, string]> = [
  ['card.buyerAuthNum', 'buyerAuthNum'],
  ['card.password2', 'cardPassword2'],
  ['card.number', 'cardNumber'],
  ['card.expiry', 'cardExpiry'],
  ['buyer.name', 'buyerName'],
  ['buyer.email', 'buyerEmail'],
  ['buyer.tel', 'buyerTel'],
];

/**
 * Express itself, loaded when the first key-in router is made: the only module of the package
 * that needs Express at run time (the others take its types), so a shop using only the clients,
 * or the CLI's payout commands, never loads it.
 */
function loadExpress(): typeof import('express') {
  return createRequire(import.meta.url)('express') as typeof import('express');
}

/**
 * The key-in route: `POST /` with moid, amount?, goodsName, cardNumber, cardExpiry,
 * buyerAuthNum?, cardPassword2?, quota?, buyerName?, buyerEmail?, buyerTel? as JSON or
 * urlencoded. Charges `expectedAmount(moid)`, puts the result on `req.keyin` and calls
 * `next()`: mount your own handler after the router to render it. Failures go to
 * `next(err)` as NicepayError. Card data never reaches a log, an error or `req.keyin`, and
 * `req.body` keeps only an allow-list of non-card fields (scrub-card-data.ts, docs/keyin.md).
 */
export function keyinRouter(
  ctx: ClientContext,
  clientFor: (hookName: string | undefined) => KeyinClient,
  routeOptions: KeyinRouterOptions,
): Router {
  const options = resolveKeyinRouterOptions(routeOptions);
  const { requireHttps, goodsName, limit, onApproved, hookTimeoutMs, keepFields, installments } = options;
  // Settlement runs the route's hook again (with no request) for a key-in whose hook never resolved.
  const hookName = onApproved
    ? registerRouteHook(ctx, 'keyin', options.name, (r, context) => onApproved(r as ApprovedKeyin, undefined, context))
    : undefined;
  const client = clientFor(hookName);

  const express = loadExpress();
  const router = express.Router();
  const refuseInsecure = (req: Request, _res: Response, next: NextFunction): void => {
    if (requireHttps && !req.secure)
      next(
        new NicepayRequestError(
          'NICEPAY_INSECURE_TRANSPORT',
          'card key-in is refused over plain HTTP: serve it over HTTPS (behind a proxy, set trust proxy)',
        ),
      );
    else next();
  };
  const handle = async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    try {
      // Counted before the scrub empties the body: no parser read it, or it is not a form.
      const postedFields = isObject(req.body) ? Object.keys(req.body).length : 0;
      const { card: c, form: f } = scrubCardData(req, keepFields);
      if (postedFields === 0) {
        throw new NicepayRequestError(
          'NICEPAY_CONTENT_TYPE_UNSUPPORTED',
          'send the key-in as application/json or application/x-www-form-urlencoded',
        );
      }
      const moid = field(f, 'moid', true)!;
      const expected = await options.expectedAmount(moid, req);
      if (expected === undefined || expected === null)
        throw new NicepayRequestError('NICEPAY_UNKNOWN_ORDER', `no order ${moid} is awaiting payment`, 'moid');
      if (!Number.isSafeInteger(expected) || expected <= 0) {
        // The shop's own hook is wrong: not the buyer's fault, so not a 4xx.
        throw new NicepayHookError(
          'NICEPAY_HOOK_RESULT_INVALID',
          `expectedAmount returned what is not a positive integer number of won for order ${moid}; nothing was sent`,
          { moid },
        );
      }
      const amount = f.amount;
      if (amount !== undefined && amount !== '' && String(amount) !== String(expected)) {
        throw new NicepayRequestError(
          'NICEPAY_AMOUNT_MISMATCH',
          `the posted amount differs from the amount of order ${moid}`,
          'amount',
        );
      }
      const quota = field(f, 'quota', false);
      if (installments && !installments.has(quota === undefined ? 0 : Number(quota))) {
        throw new NicepayRequestError(
          'NICEPAY_FIELD_INVALID',
          `quota must be one of the installment plans offered: ${[...installments].join(', ')} months (0: lump sum)`,
          'quota',
        );
      }
      const input: KeyinInput = {
        moid,
        amount: expected,
        goodsName:
          typeof goodsName === 'function' ? await goodsName(moid, req) : (goodsName ?? field(f, 'goodsName', true)!),
        card: {
          number: field(c, 'cardNumber', true)!,
          expiry: field(c, 'cardExpiry', true)!,
          ...optional('buyerAuthNum', field(c, 'buyerAuthNum', false)),
          ...optional('password2', field(c, 'cardPassword2', false)),
        },
        ...optional('quota', quota),
        buyer: {
          ...optional('name', field(f, 'buyerName', false)),
          ...optional('email', field(f, 'buyerEmail', false)),
          ...optional('tel', field(f, 'buyerTel', false)),
        },
        // The client runs the hook once per payment (the hook runner); the route only adapts it.
        ...(onApproved
          ? { onApproved: (r: ApprovedKeyin, context: HookContext) => onApproved(r, req, context), hookTimeoutMs }
          : {}),
      };
      const result = await client.keyin(input).catch((err: unknown) => {
        throw renameField(err);
      });
      req.keyin = result;
      next();
    } catch (err) {
      // The shop's own hooks may throw too: whatever is passed on keeps no frames of this request.
      next(withStackText(err));
    }
  };
  router.post(
    '/',
    refuseInsecure,
    express.json({ limit, verify: refuseDuplicateKeys }),
    express.urlencoded({ extended: false, limit }),
    safeBodyErrors,
    handle,
  );
  return router;
}

/** A posted string field; arrays (a repeated key) and objects are refused. */
function field(f: Record<string, unknown>, name: string, required: boolean): string | undefined {
  const v = Object.hasOwn(f, name) ? f[name] : undefined;
  if (v === undefined || v === null || v === '') {
    if (required) throw new NicepayRequestError('NICEPAY_FIELD_INVALID', `${name} is required`, name);
    return undefined;
  }
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v !== 'string')
    throw new NicepayRequestError('NICEPAY_FIELD_INVALID', `${name} must be a single string value`, name);
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
  return new NicepayRequestError(err.code, err.message.replace(hit[0], hit[1]), hit[1]);
}

/**
 * body-parser's errors carry the raw body (`err.body`) and, for JSON, a message quoting it:
 * card data. They are replaced by errors that say only what went wrong.
 */
function safeBodyErrors(err: unknown, _req: Request, _res: Response, next: NextFunction): void {
  next(isNicepayError(err) ? err : bodyError((err as { type?: string } | null)?.type));
}

/** The body-parser error type of a JSON body that names a key twice. */
const DUPLICATE_KEYS = 'entity.duplicate.keys';

/**
 * body-parser's `verify` for the JSON body: refuses one that names a key twice, which JSON.parse
 * would read as its last value (a form answers a repeated field as an array, refused as well).
 * It throws a plain error of {@link DUPLICATE_KEYS}, which body-parser decorates with the raw
 * body (card data): {@link safeBodyErrors} replaces it by a clean one.
 */
function refuseDuplicateKeys(_req: unknown, _res: unknown, buf: Buffer, encoding: string): void {
  const text = buf.toString(encoding === 'utf-8' || encoding === 'utf8' ? 'utf8' : 'latin1');
  if (jsonNamesKeyTwice(text)) throw Object.assign(new Error('duplicate keys'), { type: DUPLICATE_KEYS });
}

/** The error that replaces body-parser's, by its type. */
function bodyError(type: string | undefined): NicepayRequestError {
  if (type === 'entity.too.large')
    return new NicepayRequestError('NICEPAY_BODY_TOO_LARGE', 'the key-in body is larger than allowed');
  if (type === 'charset.unsupported' || type === 'encoding.unsupported')
    return new NicepayRequestError('NICEPAY_CHARSET_UNSUPPORTED', 'send the key-in body in UTF-8');
  if (type === DUPLICATE_KEYS)
    return new NicepayRequestError(
      'NICEPAY_BODY_MALFORMED',
      'the key-in body names a field twice, so it can be read two ways; nothing was sent',
    );
  return new NicepayRequestError(
    'NICEPAY_BODY_MALFORMED',
    `the key-in body could not be parsed${type ? ` (${type})` : ''}`,
  );
}
