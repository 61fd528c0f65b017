import type { Request } from 'express';
import { NicepayConfigError } from '../errors/index.js';
import type { KeyinResult } from '../keyin/types.js';
import type { HookContext } from '../pipeline/index.js';
import { HOOK_TIMEOUT_MS } from '../validation/hook-option.js';
import { isObject } from '../util/is-object.js';
import { refuseUnknown } from '../validation/known-keys.js';
import { knownKeys } from '../validation/known-keys.js';
import { isCardName } from './scrub-card-data.js';

/** Names that would reach an object's prototype if copied onto `req.body`. */
const UNSAFE_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Options of `nicepay.keyinRouter()`. */
export interface KeyinRouterOptions {
  /**
   * Required. The shop's own amount for an order, in won: it is what gets charged. Return
   * undefined (or null) for an unknown Moid: 404 NICEPAY_UNKNOWN_ORDER. A posted `amount`
   * that differs is refused with 400 NICEPAY_AMOUNT_MISMATCH.
   */
  expectedAmount: (moid: string, req: Request) => number | undefined | null | Promise<number | undefined | null>;
  /**
   * Records an approved key-in, before `req.keyin` is set; never for declines. The key-in
   * client runs it through the hook runner (docs/hooks.md): once per TID, never twice at once
   * however long it runs; a resubmitted form while it runs gets 409 NICEPAY_IN_PROGRESS, one
   * after it threw runs it again. If it throws, the charge is reversed (net cancel; settlement
   * finishes a failed one) and the request fails with 500 NICEPAY_HOOK_FAILED carrying the TID.
   */
  onApproved?: (
    result: KeyinResult & { status: 'approved' },
    req: Request | undefined,
    context: HookContext,
  ) => void | Promise<void>;
  /** When onApproved's `signal` aborts; its own promise still decides. @default 30000 */
  hookTimeoutMs?: number;
  /**
   * The name this router's onApproved is registered under in the ledger, so settlement runs this
   * router's hook, and no other, for its key-ins (docs/hooks.md). Name each router when a shop
   * has several. @default 'keyin#n' for the n-th router created
   */
  name?: string;
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
  /**
   * The installment plans your form offers, in months (0: lump sum): a posted `quota` that is
   * none of them (absent counts as 0) is refused with 400 NICEPAY_FIELD_INVALID naming `quota`,
   * before anything is sent. @default every plan the gateway takes (0 and 2-99)
   */
  installments?: readonly number[];
  /**
   * Fields of your own form to leave on `req.body` besides the route's own non-card fields and
   * `_csrf`; everything else is removed once read. Each is kept only as a single string (or JSON number) with
   * no card-number-like digit run. A name that reads as card data (`cardNo1`, `validThru`,
   * `birthYmd`, ...) is refused when the router is created. @default []
   */
  keepFields?: readonly string[];
}

/** Every option of {@link KeyinRouterOptions} (not the form's fields: those are `keepFields`). */
const KEYIN_ROUTER_OPTION_NAMES = knownKeys<KeyinRouterOptions>({
  expectedAmount: true,
  onApproved: true,
  hookTimeoutMs: true,
  name: true,
  requireHttps: true,
  goodsName: true,
  limit: true,
  installments: true,
  keepFields: true,
});

/** The router options with every default filled in. */
export interface ResolvedKeyinRouterOptions {
  expectedAmount: KeyinRouterOptions['expectedAmount'];
  onApproved: KeyinRouterOptions['onApproved'];
  hookTimeoutMs: number;
  requireHttps: boolean;
  goodsName: KeyinRouterOptions['goodsName'];
  limit: number;
  /** The plans offered, or undefined for any the gateway takes. */
  installments: ReadonlySet<number> | undefined;
  keepFields: readonly string[];
  name: string | undefined;
}

/** Validates the router options once, when the router is created, naming the bad option. */
export function resolveKeyinRouterOptions(options: KeyinRouterOptions): ResolvedKeyinRouterOptions {
  if (!isObject(options)) throw new NicepayConfigError('keyinRouter(options)', 'an object');
  refuseUnknown(options, KEYIN_ROUTER_OPTION_NAMES, '', 'keyinRouter()');
  if (typeof options.expectedAmount !== 'function')
    throw new NicepayConfigError('expectedAmount', "a function (moid, req) => the order's amount");
  if (options.onApproved !== undefined && typeof options.onApproved !== 'function')
    throw new NicepayConfigError('onApproved', 'a function');
  const requireHttps = options.requireHttps ?? true;
  if (typeof requireHttps !== 'boolean') throw new NicepayConfigError('requireHttps', 'a boolean');
  const goodsName = options.goodsName;
  if (goodsName !== undefined && typeof goodsName !== 'string' && typeof goodsName !== 'function') {
    throw new NicepayConfigError('goodsName', 'a string or a function (moid, req) => string');
  }
  const hookTimeoutMs = options.hookTimeoutMs ?? HOOK_TIMEOUT_MS;
  if (!Number.isSafeInteger(hookTimeoutMs) || hookTimeoutMs <= 0)
    throw new NicepayConfigError('hookTimeoutMs', 'a positive number of ms');
  const limit = options.limit ?? 4096;
  if (!Number.isSafeInteger(limit) || limit <= 0) throw new NicepayConfigError('limit', 'a positive number of bytes');
  const installments = options.installments;
  if (
    installments !== undefined &&
    (!Array.isArray(installments) ||
      installments.length === 0 ||
      !installments.every((m) => m === 0 || (Number.isSafeInteger(m) && m >= 2 && m <= 99)))
  ) {
    throw new NicepayConfigError('installments', 'a non-empty array of months, each 0 (lump sum) or 2-99');
  }
  const keepFields = options.keepFields ?? [];
  if (
    !Array.isArray(keepFields) ||
    !keepFields.every((name) => typeof name === 'string' && /^[A-Za-z_$][\w$-]*$/.test(name) && !UNSAFE_NAMES.has(name))
  ) {
    throw new NicepayConfigError('keepFields', 'an array of form field names');
  }
  const cardNamed = keepFields.find(isCardName);
  if (cardNamed !== undefined)
    throw new NicepayConfigError(
      'keepFields',
      `names of fields that are not card data (${cardNamed} reads as card data)`,
    );
  return {
    expectedAmount: options.expectedAmount,
    onApproved: options.onApproved,
    hookTimeoutMs,
    requireHttps,
    goodsName,
    limit,
    installments: installments && new Set(installments),
    keepFields: [...keepFields],
    name: options.name,
  };
}
