import { resolveConfig, type NicepayOptions, type ResolvedConfig } from './config.js';
import { closeContext, createContext } from './context.js';
import { checkoutReturn, type CheckoutReturnOptions } from './express/checkout-return.js';
import type { RequestHandler, Router } from 'express';
import {
  createKeyinClient,
  type KeyinChargerInput,
  type KeyinChargerOptions,
  type KeyinInput,
  type KeyinResult,
} from './keyin/index.js';
import { keyinRouter, type KeyinRouterOptions } from './express/keyin-router.js';
import { createPayoutClient, type PayoutClient } from './payout/index.js';
import { payoutCancelKind } from './payout/cancel-operation.js';
import { payoutKind } from './payout/operation.js';
import { createReconClient, type ReconClient } from './recon/index.js';
import { paymentWindow } from './window/payment-window.js';
import type { PaymentWindowFields, PaymentWindowOrder } from './window/types.js';
import { createCancelClient } from './cancel/client.js';
import type { CancelInput, CancelResult } from './cancel/types.js';
import { createStatusClient } from './status/client.js';
import type { TransactionStatus } from './status/types.js';
import { notifications } from './express/notifications.js';
import type {
  CancelRejection,
  CheckoutRejection,
  KeyinRejection,
  PayoutRejection,
  ReconRejection,
  StatusRejection,
} from './errors/index.js';
import type { NotificationsOptions } from './notify/types.js';
import { billingChargeKind, type BillingClient, createBillingClient } from './billing/index.js';
import { type CashReceiptClient, cashReceiptKind, createCashReceiptClient } from './cash-receipt/index.js';
import { approvalKind } from './approval/operation.js';
import { keyinKind } from './keyin/index.js';
import { cancelKind } from './cancel/operation.js';
import {
  admit,
  type KindRegistry,
  type OperationKind,
  type SettleReport,
  settlePass,
  type UnsettledItem,
  unsettledItems,
} from './pipeline/index.js';
import { startSettler } from './pipeline/settler.js';

/** The object createNicepay returns: every interface of the gateway for one merchant. */
export interface Nicepay {
  /**
   * Middleware for the payment window's return route (interface A). Failures go to
   * `next(err)` with a code of {@link CheckoutRejection}.
   */
  checkoutReturn(options: CheckoutReturnOptions): RequestHandler;
  /**
   * Waits for calls in flight (approvals, net cancels, key-ins) to finish, then closes the
   * HTTP agents and the default memoryStore it created. A `store` the shop passed in is left
   * open (it may serve other clients): close it yourself after this. Calls made after close()
   * reject with NICEPAY_SHUTTING_DOWN.
   */
  close(): Promise<void>;
  /** The merchant id this instance was created for. */
  readonly mid: string;
  /**
   * Card key-in (interface B): charges a card from its data. Resolves to approved or declined
   * (the issuer's message verbatim); the same Moid is charged at most once. Rejects with a
   * NicepayError for bad input, an unreachable gateway or an unknown outcome: a code of
   * {@link KeyinRejection}. See docs/keyin.md.
   */
  keyin(input: KeyinInput): Promise<KeyinResult>;
  /**
   * A key-in function whose `onApproved` is registered in the ledger under `name`, as a key-in
   * route's is, so settlement runs it again for a key-in whose process died before it resolved.
   * Create it once, at start-up. See docs/keyin.md and docs/hooks.md.
   */
  keyinCharger(options: KeyinChargerOptions): (input: KeyinChargerInput) => Promise<KeyinResult>;
  /**
   * Express router for a key-in form: `POST /` charges `expectedAmount(moid)`, sets
   * `req.keyin` and calls next(); mount your handler after it. HTTPS only by default.
   */
  keyinRouter(options: KeyinRouterOptions): Router;
  /**
   * Sub-merchant payout (interface C) on `dataUrl`: balance, sub-merchant registration,
   * payout request and cancel, result query. Schedule rules (KST) are checked before sending
   * unless `payout.scheduleChecks` is false. Rejects with a code of {@link PayoutRejection}.
   * See docs/payout.md.
   */
  readonly payout: PayoutClient;
  /** Cash-receipt reconciliation (interface D) on `dataUrl`; rejects with a code of {@link ReconRejection}. */
  readonly recon: ReconClient;
  /**
   * The signed payment-window request of an order (EdiDate in KST, SignData, CharSet): render
   * the fields into the form the gateway's `goPay(form)` submits. See docs/lifecycle.md.
   */
  paymentWindow(order: PaymentWindowOrder): PaymentWindowFields;
  /**
   * Cancels (fully or partly) or refunds a paid virtual account. Resolves to cancelled,
   * refund-pending or refused; rejects when nothing was done (NICEPAY_GATEWAY_UNREACHABLE,
   * NICEPAY_RETRY_LATER) or the outcome is unknown (NICEPAY_OUTCOME_UNKNOWN). The same
   * (TID, amount, idempotencyKey) is sent once, with a Moid of its own (`cancelMoid`). Every
   * rejection code: {@link CancelRejection}. See docs/lifecycle.md.
   */
  cancel(input: CancelInput): Promise<CancelResult>;
  /**
   * Express route for the gateway's payment notifications (virtual-account deposits, cancels):
   * answers exactly `OK` once the hook resolved. Mount before any body parser.
   */
  notifications(options: NotificationsOptions): RequestHandler;
  /**
   * The gateway's transaction status inquiry: advice, not proof (no signature, no amount).
   * Rejects with a code of {@link StatusRejection}.
   */
  status(tid: string): Promise<TransactionStatus>;
  /**
   * Recurring card billing: register a card into a billing key (BID), charge it (at most once
   * per Moid, net-cancelled when the outcome is unknown), remove it. See docs/billing.md.
   */
  readonly billing: BillingClient;
  /** Standalone cash receipts for cash taken outside the payment window. See docs/cash-receipts.md. */
  readonly cashReceipt: CashReceiptClient;
  /**
   * One settlement pass over the open records of this client's store (docs/reliability.md,
   * "Settlement"): every operation whose outcome was unknown, whose reversal failed, or whose
   * hook never resolved is driven to a final state (kept, reversed, never charged) by what the
   * gateway says of it. Resolves to what it closed and what is still open, with why and when it
   * is tried next. The automatic settler (`settle.intervalMs`) runs the same pass.
   */
  settle(): Promise<SettleReport>;
  /** Every record still open, for a back office: why, how often tried, when next, whether it needs attention. */
  unsettled(): Promise<UnsettledItem[]>;
}

/**
 * Creates the client for one merchant. Options are validated here, so a misconfigured shop
 * fails at start-up with a NicepayConfigError naming the option.
 */
export function createNicepay(options: NicepayOptions): Nicepay {
  const config: ResolvedConfig = resolveConfig(options);
  const ctx = createContext(config);
  // One kind per money operation: what the ledger and settlement know of each.
  const approval = approvalKind(ctx);
  const keyin = keyinKind(ctx);
  const billingCharge = billingChargeKind(ctx);
  const cashReceipt = cashReceiptKind(ctx);
  const cancel = cancelKind(ctx);
  const payout = payoutKind(ctx);
  const payoutCancel = payoutCancelKind(ctx);
  const kinds: KindRegistry = new Map<string, OperationKind<unknown>>([
    ['approval', approval],
    ['keyin', keyin],
    ['billing.charge', billingCharge],
    ['cash-receipt', cashReceipt],
    ['cancel', cancel],
    ['payout', payout],
    ['payout.cancel', payoutCancel],
  ] as [string, OperationKind<unknown>][]) as KindRegistry;
  const settings = { batch: config.settle.batch, attentionAfterMs: config.settle.attentionAfterMs };
  const settler =
    config.settle.intervalMs === false ? undefined : startSettler(ctx, kinds, settings, config.settle.intervalMs);
  const keyinClient = createKeyinClient(ctx, keyin);
  const statusClient = createStatusClient(ctx);
  const cancelClient = createCancelClient(ctx, cancel);
  return {
    checkoutReturn: (opts) => checkoutReturn(ctx, approval, opts),
    close: () => {
      settler?.stop();
      return closeContext(ctx);
    },
    mid: config.mid,
    keyin: (input) => keyinClient.keyin(input),
    keyinCharger: (opts) => keyinClient.charger(opts),
    keyinRouter: (opts) => keyinRouter(ctx, (hookName) => createKeyinClient(ctx, keyin, hookName), opts),
    payout: createPayoutClient(ctx, payout, payoutCancel),
    recon: createReconClient(ctx),
    paymentWindow: (order) => paymentWindow(config, order),
    cancel: (input) => cancelClient(input),
    notifications: (opts) => notifications(ctx, opts),
    status: (tid) => statusClient(tid),
    billing: createBillingClient(ctx, billingCharge),
    cashReceipt: createCashReceiptClient(ctx, cashReceipt),
    settle: () => admit(ctx, 'settlement', () => settlePass(ctx, kinds, settings)),
    unsettled: () => unsettledItems(ctx, settings),
  };
}
