/**
 * Back-office orders (mounted at /admin/orders, behind the login and CSRF guard):
 *
 *   GET  /admin/orders                   paid and virtual-account orders with what is left to refund
 *   GET  /admin/orders/:moid             one order: refund form (full or partial; a paid virtual
 *                                        account needs a refund account), deposit button on the sandbox
 *   POST /admin/orders/:moid/refund      step 1: confirmation with the amount and the order;
 *                                        step 2 (confirm=yes): nicepay.cancel, then 303 back
 *   POST /admin/orders/:moid/refunds/:id/resolve
 *                                        a refund whose outcome was lost (see below): a full one is
 *                                        checked by the same cancel (409 while the package settles it),
 *                                        a partial one is recorded by the operator
 *   POST /admin/orders/:moid/refunds/:id/paid-out
 *                                        records that a refund NICEPAY only accepted (a paid virtual
 *                                        account's, "not paid out yet") was paid out to its account:
 *                                        the operator saw it in NICEPAY's merchant admin; nothing is sent
 *   POST /admin/orders/:moid/deposit     embedded sandbox only: sandbox.deposit (the buyer pays the
 *                                        virtual account; the notice reaches /pay/notify)
 *
 * A refund is never paid twice (../db-refunds.ts). The confirmation carries the amount intent
 * (the remaining amount the operator saw and the amount), and the intent is recorded before
 * nicepay.cancel is called. A confirmation posted again (double click, Back) finds its intent
 * and sends nothing; one made stale by another refund is refused. When the outcome is lost
 * (timeout, reset, unverifiable answer), the intent stays open and the order offers no refund
 * until it is settled:
 *
 * - a full refund is left to the package's settlement, which sends the same full cancel again
 *   (same idempotency key, same cancel Moid) until it is done or refused as already cancelled:
 *   the money goes back once. The intent follows the settled record (../settlement-follower.ts).
 *   While nicepay.unsettled() lists it, the page shows it as being settled (why, next attempt)
 *   and offers nothing; a resolve posted meanwhile answers 409. Once the package holds it no
 *   more (settled while the shop was not listening, e.g. by `express-nicepay settle` from cron),
 *   "결과 확인" repeats the same cancel, which the library answers from its closed record.
 * - a partial refund is never sent again by the package (a second partial cancel may be paid
 *   twice, and the status inquiry does not show partial cancels): it needs attention, and the
 *   page shows the status inquiry and the operator records what NICEPAY's merchant admin shows.
 *
 * The shop's remaining amount goes along with every cancel, so a refund larger than it is
 * refused before anything is sent. Each refund, outcome and resolution leaves an audit line.
 */
import type { Router, Request, Response } from 'express';
import { shopRouter } from './router.js';
import { redirectWithNotice, takeNotice } from '../admin-notice.js';
import type { ShopContext } from '../shop-context.js';
import { audit, csrfInput } from '../admin-auth.js';
import type { Order } from '../db.js';
import { depositDeadlinePassed } from '../order-state.js';
import { type RefundIntent, refundStore } from '../db-refunds.js';
import { CANCEL_REFUSAL, operatorError } from '../korean.js';
import { heldRecords } from '../package-held.js';
import { payoutOf, type Sent, sendRefund, settleBySent } from '../refund-calls.js';
import { html, won } from '../views.js';
import type { CancelResult, UnsettledItem } from '../../src/index.js';
import { adminPage, errorNotice, field, okNotice } from './admin-page.js';
import {
  cancelsUnpaid,
  confirmSummary,
  needsRefundAccount,
  orderDetails,
  ordersTable,
  refundForm,
  refundHistory,
  refundable,
  wholeOnly,
  remaining,
  resendable,
  unresolvedPanel,
  type RefundForm,
} from './admin-order-view.js';

/** The order's back-office page. */
const orderLocation = (o: Order): string => `/admin/orders/${encodeURIComponent(o.moid)}`;

/** What the order's page says after a settled refund or cancel. */
function doneNotice(o: Order, i: RefundIntent): string {
  if (cancelsUnpaid(o)) return '입금 전 가상계좌 주문을 취소했습니다. 가상계좌가 닫혀 입금할 수 없습니다.';
  const refunded = i.cancelledAmount ?? i.amount;
  return i.payout === 'pending'
    ? `${won(refunded)} 환불이 접수되었습니다 (지급 전). NICEPAY가 환불 계좌로 지급하면 환불 내역에서 지급 완료를 기록해 주세요.`
    : `${won(refunded)}을 환불했습니다.`;
}

/** The back-office order pages. */
export function adminOrderRoutes(ctx: ShopContext): Router {
  const { db, nicepay, logger, sandbox } = ctx;
  const refunds = refundStore(db);
  /** Intents whose call is running in this process (a pending intent not here was cut off). */
  const inFlight = new Set<number>();
  const router = shopRouter();

  /** Sends an intent's cancel (../refund-calls.ts: one key per intent try), marked in flight. */
  async function send(i: RefundIntent): Promise<Sent> {
    inFlight.add(i.id);
    try {
      return await sendRefund(nicepay, i);
    } finally {
      inFlight.delete(i.id);
    }
  }

  /**
   * The package's open record of an intent's cancel, if nicepay.unsettled() lists it (same TID,
   * order and amount); `'unknown'` when the list cannot be read (then nothing is offered).
   */
  async function heldBy(i: RefundIntent): Promise<UnsettledItem | 'unknown' | undefined> {
    const held = await heldRecords(ctx, 'cancel');
    return held ? held.get(i.moid)?.find((u) => u.tid === i.tid && u.amount === i.amount) : 'unknown';
  }

  router.get('/', (req, res) => {
    const orders = db.orders().filter((o) => o.tid !== null && o.status !== 'declined');
    adminPage(
      req,
      res,
      200,
      '주문 관리',
      orders.length === 0
        ? html`<p id="no-admin-orders" class="muted">결제된 주문이 없습니다.</p>`
        : ordersTable(orders),
    );
  });

  async function orderPage(
    req: Request,
    res: Response,
    status: number,
    o: Order,
    opts: { error?: string; ok?: string; values?: Partial<RefundForm> } = {},
  ): Promise<void> {
    const open = refunds.open(o.moid);
    const refund = open
      ? unresolvedPanel(req, o, open, inFlight.has(open.id), await heldBy(open))
      : refundable(o) && refundForm(req, o, opts.values ?? {});
    const deposit =
      sandbox &&
      o.status === 'awaiting-deposit' &&
      o.tid &&
      remaining(o) > 0 &&
      !depositDeadlinePassed(o, ctx.clock()) &&
      html`<form id="deposit-form" class="card" method="post" action="/admin/orders/${o.moid}/deposit">${csrfInput(req)}
<p class="muted">샌드박스 전용: 구매자가 가상계좌에 입금한 것으로 처리하고 입금 통보를 보냅니다.</p>
<div class="actions"><button type="submit" class="secondary" id="deposit-submit">입금 처리 (샌드박스)</button></div></form>`;
    adminPage(
      req,
      res,
      status,
      '주문 상세',
      html`${errorNotice(opts.error)}${okNotice(opts.ok)}
${orderDetails(o)}
${deposit}${refund}${refundHistory(req, o, refunds.ofOrder(o.moid))}<p><a class="line-link" href="/admin/orders">주문 목록으로</a></p>`,
    );
  }

  router.get('/:moid', async (req, res, next) => {
    const o = db.order(req.params.moid);
    if (!o) return next();
    const { ok } = takeNotice(req);
    await orderPage(req, res, 200, o, ok ? { ok } : {}).catch(next);
  });

  router.post('/:moid/refund', async (req, res, next) => {
    const o = db.order(req.params.moid);
    if (!o) return next();
    const values: RefundForm = {
      amount: field(req.body, 'amount'),
      reason: field(req.body, 'reason'),
      bankCode: field(req.body, 'bankCode'),
      number: field(req.body, 'number'),
      holder: field(req.body, 'holder'),
    };
    const back = (status: number, error: string): Promise<void> => orderPage(req, res, status, o, { error, values });
    const confirmed = field(req.body, 'confirm') === 'yes';
    try {
      // A confirmation posted again (double click, Back) finds its own intent: nothing is sent.
      const posted = confirmed ? refunds.byKey(o.moid, field(req.body, 'idempotencyKey')) : undefined;
      if (posted?.state === 'done') {
        audit(logger, req, 'refund.repeated', { moid: o.moid, tid: o.tid, amount: posted.amount, intent: posted.id });
        return redirectWithNotice(req, res, orderLocation(o), { ok: doneNotice(o, posted) });
      }
      if (refunds.open(o.moid))
        return back(
          409,
          '이 주문에 결과를 확인하지 못한 환불이 있습니다. 아래에서 결과를 확인한 뒤에만 새 환불을 할 수 있습니다. 아무것도 보내지 않았습니다.',
        );
      if (!refundable(o)) return back(409, '환불할 수 있는 주문이 아닙니다.');
      if (!/^[1-9]\d{0,11}$/.test(values.amount)) return back(400, '금액은 1원 이상의 정수(원)로 입력해 주세요.');
      const amount = Number(values.amount);
      if (amount > remaining(o)) return back(422, `남은 금액(${won(remaining(o))})보다 많이 환불할 수 없습니다.`);
      const whole = wholeOnly(o);
      if (whole && amount !== remaining(o))
        return back(
          422,
          `${whole}는 남은 금액(${won(remaining(o))}) 전액만 환불할 수 있습니다. 아무것도 보내지 않았습니다.`,
        );
      if (!values.reason) return back(400, '사유를 입력해 주세요.');
      if (needsRefundAccount(o) && !(values.bankCode && values.number && values.holder))
        return back(400, '환불 계좌(은행 코드, 계좌번호, 예금주)를 입력해 주세요.');
      const partial = amount < remaining(o);
      const key = refunds.keyOf(remaining(o), amount);
      if (!confirmed) {
        adminPage(
          req,
          res,
          200,
          cancelsUnpaid(o) ? '주문 취소 확인' : '환불 확인',
          html`<form id="confirm-form" class="card" method="post" action="/admin/orders/${o.moid}/refund">${csrfInput(req)}
<p id="confirm-summary">${confirmSummary(o, amount, partial, values)}</p>
${Object.entries(values).map(([k, val]) => html`<input type="hidden" name="${k}" value="${val}">`)}
<input type="hidden" name="idempotencyKey" value="${key}"><input type="hidden" name="confirm" value="yes">
<div class="actions"><button type="submit" id="confirm-submit">${cancelsUnpaid(o) ? '확인, 주문을 취소합니다' : '확인, 환불합니다'}</button><a class="button secondary" href="/admin/orders/${o.moid}" id="confirm-back">돌아가기</a></div></form>`,
        );
        return;
      }
      // The confirmation names the remaining amount it was made for: another refund since then
      // makes it stale, and it is not sent (it might refund what was already refunded).
      if (field(req.body, 'idempotencyKey') !== key) {
        return back(
          409,
          '확인 화면을 연 뒤 이 주문의 환불 금액이 바뀌었습니다. 아무것도 보내지 않았습니다. 금액을 다시 확인해 주세요.',
        );
      }
      const begun = refunds.begin({
        moid: o.moid,
        tid: o.tid!,
        amount,
        remainingBefore: remaining(o),
        partial,
        reason: values.reason,
        ...(needsRefundAccount(o)
          ? { bankCode: values.bankCode, number: values.number, holder: values.holder }
          : { bankCode: '', number: '', holder: '' }),
      });
      if ('busy' in begun)
        return back(409, '이 주문에 결과를 확인하지 못한 환불이 있습니다. 아무것도 보내지 않았습니다.');
      const intent = begun.intent;
      const sent = await send(intent);
      const settled = settleBySent(refunds, intent, sent, (r) =>
        r.status === 'refund-pending' ? 'NICEPAY 환불 접수' : cancelsUnpaid(o) ? '주문 취소 완료' : '환불 완료',
      );
      if (sent.kind === 'result' && sent.r.status !== 'refused' && settled) {
        const r = sent.r;
        audit(logger, req, 'refund', {
          moid: o.moid,
          tid: o.tid,
          amount: r.cancelledAmount,
          partial,
          outcome: r.status,
          duplicate: r.duplicate,
          remainingAmount: r.remainingAmount,
          intent: intent.id,
        });
        return redirectWithNotice(req, res, orderLocation(o), { ok: doneNotice(o, settled) });
      }
      if (sent.kind === 'result') {
        const r = sent.r as Extract<CancelResult, { status: 'refused' }>;
        audit(logger, req, 'refund.refused', { moid: o.moid, tid: o.tid, amount, code: r.code, intent: intent.id });
        return back(409, `${CANCEL_REFUSAL[r.reason] ?? CANCEL_REFUSAL.other} (코드 ${r.code})`);
      }
      const e = operatorError(sent.err);
      if (sent.kind === 'not-sent') {
        audit(logger, req, 'refund.failed', {
          moid: o.moid,
          tid: o.tid,
          amount,
          code: (sent.err as { code?: string }).code,
          intent: intent.id,
        });
        return back(e?.status ?? 502, e?.message ?? 'NICEPAY에 요청하지 못했습니다. 아무것도 처리되지 않았습니다.');
      }
      // Sent, outcome lost: the intent stays open and blocks any new refund until it is settled
      // (a full refund by the package, which the intent then follows; a partial one by the operator).
      if (!settled)
        refunds.settle(
          intent.id,
          'unknown',
          intent.partial ? '결과 모름 (운영자 확인 필요)' : '결과 모름 (자동 정산 중)',
        );
      audit(logger, req, 'refund.unknown', {
        moid: o.moid,
        tid: o.tid,
        amount,
        code: (sent.err as { code?: string }).code,
        intent: intent.id,
      });
      await orderPage(req, res, 502, o, {
        error: intent.partial
          ? 'NICEPAY의 응답을 받지 못해 부분 환불 여부를 알 수 없습니다. 부분 환불은 자동으로 다시 보내지 않습니다. 아래에서 결과를 확인해 기록해 주세요. 기록하기 전에는 이 주문의 새 환불을 보내지 않습니다.'
          : 'NICEPAY의 응답을 받지 못해 환불 여부를 알 수 없습니다. 결제 모듈이 같은 취소를 다시 보내 자동으로 정산합니다. 정산되기 전에는 이 주문의 새 환불을 보내지 않습니다.',
      });
    } catch (err) {
      next(err);
    }
  });

  router.post('/:moid/refunds/:id/resolve', async (req, res, next) => {
    const o = db.order(req.params.moid);
    const i = o ? refunds.byId(Number(req.params.id)) : undefined;
    if (!o || !i || i.moid !== o.moid) return next();
    try {
      if (i.state !== 'pending' && i.state !== 'unknown')
        return await orderPage(req, res, 409, o, { error: '이미 결과가 확인된 환불입니다.' });
      if (inFlight.has(i.id))
        return await orderPage(req, res, 409, o, {
          error: '이 환불은 아직 처리 중입니다. 잠시 후 다시 확인해 주세요.',
        });
      if (!resendable(i)) {
        // A partial refund: the package never sends it again, so the operator records it.
        const outcome = field(req.body, 'outcome');
        if (outcome === 'refunded' || outcome === 'not-refunded') {
          refunds.settle(
            i.id,
            outcome === 'refunded' ? 'done' : 'refused',
            outcome === 'refunded' ? '운영자 확인: 환불됨' : '운영자 확인: 환불되지 않음',
            undefined,
            payoutOf(i),
          );
          audit(logger, req, 'refund.resolved', {
            moid: o.moid,
            tid: o.tid,
            amount: i.amount,
            intent: i.id,
            outcome,
            by: 'operator',
          });
          return res.redirect(303, `/admin/orders/${encodeURIComponent(o.moid)}`);
        }
        // The status inquiry: advice only (no amounts, partial cancels do not show).
        let advice: string;
        try {
          const st = await nicepay.status(i.tid);
          advice = {
            approved: '승인 상태 (부분 환불 여부는 나타나지 않습니다)',
            cancelled: '전액 취소됨',
            'not-found': '승인된 거래 없음',
          }[st.status];
        } catch (err) {
          advice = operatorError(err)?.message ?? '조회하지 못했습니다.';
        }
        return await orderPage(req, res, 200, o, {
          ok: `거래 상태 조회: ${advice}. NICEPAY 가맹점 관리자에서 ${won(i.amount)} 부분 환불이 있는지 확인한 뒤 기록해 주세요.`,
        });
      }
      // A full refund is the package's to settle: while it holds the cancel open, nothing here.
      const held = await heldBy(i);
      if (held) {
        audit(logger, req, 'refund.resolve.refused', { moid: o.moid, tid: o.tid, amount: i.amount, intent: i.id });
        return await orderPage(req, res, 409, o, {
          error:
            '이 환불은 결제 모듈이 자동으로 정산하고 있습니다. 정산이 끝나면 환불 기록이 따라 바뀝니다. 아무것도 보내지 않았습니다.',
        });
      }
      // Held no more (settled while the shop did not hear it, or never recorded): the same cancel,
      // same key. A closed record answers without sending; one never written is sent now.
      const sent = await send(i);
      const settled = settleBySent(refunds, i, sent, (r) =>
        r.duplicate ? '재확인: 정산된 결과' : payoutOf(i, r) === 'pending' ? 'NICEPAY 환불 접수' : '환불 완료',
      );
      if (settled?.state !== 'done') {
        const r = sent.kind === 'result' ? sent.r : undefined;
        const why =
          r?.status === 'refused'
            ? `${CANCEL_REFUSAL[r.reason] ?? CANCEL_REFUSAL.other} (코드 ${r.code})`
            : settled
              ? '환불되지 않았습니다. 다시 환불할 수 있습니다.'
              : sent.kind !== 'result'
                ? (operatorError(sent.err)?.message ?? '응답을 받지 못했습니다. 결제 모듈이 자동으로 정산합니다.')
                : '';
        audit(logger, req, 'refund.checked', {
          moid: o.moid,
          tid: o.tid,
          amount: i.amount,
          intent: i.id,
          state: settled?.state ?? i.state,
        });
        return await orderPage(req, res, settled ? 409 : 502, o, { error: `결과: ${why}` });
      }
      audit(logger, req, 'refund.resolved', {
        moid: o.moid,
        tid: o.tid,
        amount: i.amount,
        intent: i.id,
        outcome: 'refunded',
        by: 'same-cancel',
      });
      redirectWithNotice(req, res, orderLocation(o), { ok: doneNotice(o, settled) });
    } catch (err) {
      next(err);
    }
  });

  // A refund NICEPAY accepted was paid out to its account, as the operator saw in NICEPAY's
  // merchant admin: recorded in the shop only (nothing is sent; the gateway gives no notice).
  router.post('/:moid/refunds/:id/paid-out', (req, res, next) => {
    const o = db.order(req.params.moid);
    const i = o ? refunds.byId(Number(req.params.id)) : undefined;
    if (!o || !i || i.moid !== o.moid) return next();
    if (!refunds.markPaidOut(i.id))
      return void orderPage(req, res, 409, o, {
        error: '지급을 기다리는 환불이 아닙니다. 아무것도 바꾸지 않았습니다.',
      }).catch(next);
    audit(logger, req, 'refund.paid-out', {
      moid: o.moid,
      tid: o.tid,
      amount: i.cancelledAmount ?? i.amount,
      intent: i.id,
      by: 'operator',
    });
    redirectWithNotice(req, res, orderLocation(o), { ok: '환불 계좌로 지급된 것으로 기록했습니다.' });
  });

  router.post('/:moid/deposit', async (req, res, next) => {
    const o = db.order(req.params.moid);
    if (!o || !sandbox) return next();
    if (o.status !== 'awaiting-deposit' || !o.tid || remaining(o) <= 0)
      return void orderPage(req, res, 409, o, { error: '입금을 기다리는 가상계좌가 아닙니다.' }).catch(next);
    if (depositDeadlinePassed(o, ctx.clock()))
      return void orderPage(req, res, 409, o, {
        error: '입금 기한이 지난 가상계좌입니다. 은행이 입금을 받지 않습니다.',
      }).catch(next);
    try {
      await sandbox.deposit(o.tid);
      audit(logger, req, 'sandbox.deposit', { moid: o.moid, tid: o.tid, amount: o.amount });
      redirectWithNotice(req, res, orderLocation(o), { ok: '입금 통보를 받아 주문이 결제 완료되었습니다.' });
    } catch (err) {
      next(err);
    }
  });
  return router;
}
