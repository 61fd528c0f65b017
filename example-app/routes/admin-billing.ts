/**
 * Back-office subscriptions (mounted at /admin/billing, behind the login and CSRF guard):
 *
 *   GET  /admin/billing                      subscriptions, this month's charge, past charges
 *   POST /admin/billing/:id/charge           "charge this month" (KST month): the shop's own charges
 *                                            table is checked first (../db-billing.ts), so a paid month
 *                                            is never sent again, whatever is clicked, after a restart
 *                                            too; then nicepay.billing.charge with the attempt's Moid
 *                                            (SUB-<id>-<YYYYMM>, -2 ... after a decline); 303 back
 *   POST /admin/billing/charges/:moid/resolve an attempt whose outcome was lost, once the package holds
 *                                            it no more: the same charge (same Moid, card, amount), which
 *                                            the library answers from its closed record (409 while the
 *                                            package settles it; the operator records no outcome by hand)
 *   POST /admin/billing/:id/remove           nicepay.billing.remove, then the subscription is ended
 *   /admin/billing/receipts                  cash receipts: ./admin-receipts.ts
 *
 * A charge whose answer was lost is the package's to settle (docs/billing.md): it reverses it, or
 * finds it never charged, or keeps it, and the attempt follows the settled record
 * (../settlement-follower.ts): kept, the month is paid; otherwise it may be charged again. While
 * nicepay.unsettled() lists it, the page says so, with why and when it is tried next.
 */
import type { Router, Request, Response } from 'express';
import { shopRouter } from './router.js';
import { redirectWithNotice, takeNotice } from '../admin-notice.js';
import { randomBytes } from 'node:crypto';
import type { ShopContext } from '../shop-context.js';
import { audit, csrfInput } from '../admin-auth.js';
import { billingDb, PLAN, type ChargeStatus, type Subscription, type SubscriptionCharge } from '../db-billing.js';
import { dataTable, type Column } from '../data-table.js';
import { operatorError } from '../korean.js';
import { html, kstDateTime, won } from '../views.js';
import { type BillingChargeResult, isNicepayError, type UnsettledItem } from '../../src/index.js';
import { heldRecords } from '../package-held.js';
import { adminPage, errorNotice, field, kstToday, okNotice } from './admin-page.js';
import { adminReceiptRoutes } from './admin-receipts.js';

/** A charge attempt's state in the operator's words. */
export const CHARGE_LABEL: Readonly<Record<ChargeStatus, string>> = {
  charging: '처리 중',
  unknown: '확인 필요',
  approved: '결제 완료',
  declined: '결제 거절',
  failed: '결제 안 됨',
};

/** `202611` → `2026-11`. */
const monthLabel = (month: string): string => `${month.slice(0, 4)}-${month.slice(4)}`;

/** The back-office billing pages. */
export function adminBillingRoutes(ctx: ShopContext): Router {
  const { db, nicepay, logger } = ctx;
  const billing = billingDb(db, ctx.merchantKey);
  const router = shopRouter();
  router.use('/receipts', adminReceiptRoutes(ctx));
  /** This KST month, YYYYMM, on the shop's clock. */
  const thisMonth = (): string => kstToday(ctx.clock()).slice(0, 6);

  /** Charge attempts whose call runs in this process (an open attempt not here was cut off). */
  const inFlight = new Set<string>();
  /** An open attempt whose call is not running here: sent (or cut off) and its outcome unknown. */
  const unsettled = (c: SubscriptionCharge): boolean =>
    c.status === 'unknown' || (c.status === 'charging' && !inFlight.has(c.moid));

  /** What an open attempt's 관리 cell says: settled by the package, or checked by the same charge. */
  function openCell(req: Request, c: SubscriptionCharge, held: Map<string, UnsettledItem[]> | undefined) {
    const u = held?.get(c.moid)?.[0];
    if (!held) return html`<span class="muted">결제 장부를 읽지 못했습니다</span>`;
    if (u)
      return html`<span class="settling" id="settling-${c.moid}" data-attempts="${String(u.attempts)}">결제 모듈이 정산 중: ${u.reason}. 다음 확인 ${kstDateTime(u.nextAttemptAt)} (${String(u.attempts)}회 시도)${u.needsAttention ? ' · 확인 필요' : ''}</span>`;
    return html`<form method="post" action="/admin/billing/charges/${c.moid}/resolve" class="inline">${csrfInput(req)}<button type="submit" class="secondary" id="check-${c.moid}">결과 확인</button></form>`;
  }

  async function listPage(
    req: Request,
    res: Response,
    status: number,
    notice: { error?: string; ok?: string } = {},
  ): Promise<void> {
    const held = await heldRecords(ctx, 'billing.charge');
    const month = thisMonth();
    const subscriptions = billing.subscriptions();
    const subColumns: Array<Column<Subscription>> = [
      { label: '번호', kind: 'id', cell: (s) => String(s.id) },
      { label: '구매자', kind: 'text', cell: (s) => s.buyerName },
      { label: '카드', kind: 'method', cell: (s) => s.cardName },
      { label: '빌키', kind: 'id', cell: (s) => s.bidMasked, extraClass: () => 'bid' },
      {
        label: '이번 달',
        kind: 'status',
        extraClass: () => 'month-status',
        cell: (s) => {
          const current = billing.monthCharge(s.id, month);
          return current
            ? `${CHARGE_LABEL[current.status]} ${won(current.amount)}`
            : s.status === 'active'
              ? '미청구'
              : '-';
        },
      },
      {
        label: '청구 횟수',
        kind: 'amount',
        extraClass: () => 'charges',
        cell: (s) => String(billing.charges(s.id).length),
      },
      {
        label: '관리',
        kind: 'actions',
        cell: (s) =>
          s.status === 'active'
            ? html`<form method="post" action="/admin/billing/${String(s.id)}/charge" class="inline">${csrfInput(req)}<button type="submit" id="charge-${String(s.id)}">이번 달 청구</button></form>
<form method="post" action="/admin/billing/${String(s.id)}/remove" class="inline">${csrfInput(req)}<button type="submit" class="secondary" id="remove-${String(s.id)}">카드 삭제</button></form>`
            : '해지됨',
      },
    ];
    const history = subscriptions.flatMap((s) => billing.charges(s.id));
    const chargeColumns: Array<Column<SubscriptionCharge>> = [
      { label: '월', kind: 'date', cell: (c) => monthLabel(c.month) },
      { label: '구독', kind: 'id', cell: (c) => String(c.subscriptionId) },
      { label: '주문번호', kind: 'moid', cell: (c) => c.moid },
      { label: '금액', kind: 'amount', cell: (c) => won(c.amount) },
      { label: '결과', kind: 'text', cell: (c) => `${CHARGE_LABEL[c.status]}${c.message ? ` (${c.message})` : ''}` },
      { label: 'TID', kind: 'tid', cell: (c) => c.tid || '-' },
      {
        label: '관리',
        kind: 'actions',
        cell: (c) => unsettled(c) && openCell(req, c, held),
      },
    ];
    adminPage(
      req,
      res,
      status,
      '정기구독',
      html`${errorNotice(notice.error)}${okNotice(notice.ok)}
<p class="muted">${PLAN.name}, 매월 ${won(PLAN.price)}. 이번 달: ${monthLabel(month)} (KST). 한 달에 한 번만 결제됩니다: 이미 결제된 달은 다시 보내지 않습니다. <a href="/admin/billing/receipts" id="receipts-link">현금영수증 발급</a></p>
${
  subscriptions.length === 0
    ? html`<p id="no-subscriptions" class="muted">구독이 없습니다.</p>`
    : dataTable('subscriptions', subColumns, subscriptions, (s) => ({ subscription: s.id, status: s.status }))
}
${
  history.length > 0 &&
  html`<h2>청구 내역</h2>${dataTable('subscription-charges', chargeColumns, history, (c) => ({ moid: c.moid, status: c.status }))}
${history.some(unsettled) && html`<p class="muted" id="charge-unknown-note">"확인 필요" 청구는 응답을 받지 못해 결과를 알 수 없습니다. 결제 모듈이 NICEPAY에 확인해 자동으로 정산합니다: 결제되었으면 취소하고(또는 기록된 결제는 유지하고), 결제되지 않았으면 그렇게 기록합니다. 정산 결과에 따라 청구 내역이 바뀌며, 그 전에는 그 달을 다시 청구하지 않습니다. <a href="/admin/settlement">결제 정산</a>에서 지금 정산할 수 있습니다. 결제 모듈에 정산 기록이 없는 청구는 "결과 확인"이 같은 청구(같은 주문번호)로 확인합니다: 정산된 청구는 보내지 않고 그 결과로 답합니다.</p>`}`
}`,
    );
  }

  router.get('/', async (req, res) => {
    await listPage(req, res, 200, takeNotice(req));
  });

  /**
   * Sends an attempt's charge (or repeats it: same Moid, card and amount, which the library
   * answers from its record) and settles the attempt by what it comes to: approved (in the hook),
   * declined, not charged (not sent, reversed, never charged), or still open (`unknown`: the
   * package settles it, and the attempt follows).
   */
  // The month's charges go through one charger: its hook is registered in the ledger, so if the
  // shop dies before recording a charge the gateway made, settlement records it by itself.
  const chargeMonth = nicepay.billing.charger({
    name: 'subscription-month',
    onApproved: (a) => void billing.settleCharge(a.moid, { status: 'approved', tid: a.tid, amount: a.amount }),
  });

  async function sendCharge(
    c: SubscriptionCharge,
    bid: string,
  ): Promise<{ r: BillingChargeResult } | { err: unknown; unknown: boolean }> {
    const { moid } = c;
    inFlight.add(moid);
    try {
      const r = await chargeMonth({
        bid,
        moid,
        amount: c.amount,
        goodsName: `${PLAN.name} ${Number(c.month.slice(4))}월`,
      });
      if (r.status === 'declined')
        billing.settleCharge(moid, { status: 'declined', tid: r.tid, amount: r.amount, message: r.message });
      return { r };
    } catch (err) {
      // Sent and not settled yet: the month stays open until the package settles it.
      const unknown = !isNicepayError(err) || (err as { outcomeUnknown?: boolean }).outcomeUnknown === true;
      const settlement = (err as { settlement?: unknown }).settlement;
      const tid = (err as { tid?: unknown }).tid;
      billing.settleCharge(moid, {
        status: unknown ? 'unknown' : 'failed',
        ...(typeof tid === 'string' && tid ? { tid } : {}),
        message: unknown
          ? '결과 모름 (자동 정산 중)'
          : settlement === 'reversed'
            ? '결제 취소됨'
            : settlement === 'never-charged'
              ? '결제되지 않음'
              : operatorError(err)
                ? '보내지 못했거나 취소됨'
                : '처리 실패',
      });
      return { err, unknown };
    } finally {
      inFlight.delete(moid);
    }
  }

  router.post('/:id/charge', async (req, res) => {
    const id = Number(req.params.id);
    const bid = billing.bidOf(id);
    if (!bid) return listPage(req, res, 404, { error: '청구할 수 있는 구독이 아닙니다 (해지되었거나 없는 구독).' });
    const month = thisMonth();
    const label = `${Number(month.slice(4))}월`;
    // The shop's own check, before anything is sent: a paid month is never charged again.
    const begun = billing.beginCharge(id, month, PLAN.price);
    if ('paid' in begun) {
      audit(logger, req, 'billing.charge.repeated', { subscription: id, moid: begun.paid.moid, tid: begun.paid.tid });
      return redirectWithNotice(req, res, '/admin/billing', {
        ok: `이번 달은 이미 청구했습니다. ${label} 구독료 ${won(begun.paid.amount)}이 결제되어 있습니다. 아무것도 보내지 않았습니다.`,
      });
    }
    if ('open' in begun) {
      return listPage(req, res, 409, {
        error: inFlight.has(begun.open.moid)
          ? '이번 달 청구가 아직 처리 중입니다. 잠시 후 다시 확인해 주세요. 아무것도 보내지 않았습니다.'
          : `이번 달 청구(${begun.open.moid})의 결과를 알 수 없습니다. 정산되기 전에는 다시 청구하지 않습니다. 아무것도 보내지 않았습니다.`,
      });
    }
    const { moid } = begun.attempt;
    const sent = await sendCharge(begun.attempt, bid);
    if ('r' in sent) {
      const { r } = sent;
      audit(logger, req, 'billing.charge', { subscription: id, moid, tid: r.tid, status: r.status });
      return redirectWithNotice(
        req,
        res,
        '/admin/billing',
        r.status === 'approved'
          ? { ok: `${label} 구독료 ${won(r.amount)}을 결제했습니다.` }
          : { error: `${label} 결제가 거절되었습니다: ${r.message}` },
      );
    }
    const { err, unknown } = sent;
    const e = operatorError(err);
    audit(logger, req, 'billing.charge.failed', {
      subscription: id,
      moid,
      code: (err as { code?: string }).code,
      outcomeUnknown: unknown,
    });
    const hookFailed = (err as { code?: string }).code === 'NICEPAY_HOOK_FAILED';
    await listPage(req, res, e?.status ?? 502, {
      error: unknown
        ? '결제 결과를 알 수 없습니다. 결제 모듈이 NICEPAY에 확인해 자동으로 정산합니다 (결제되었으면 취소). 정산되기 전에는 이 달을 다시 청구하지 않습니다.'
        : hookFailed
          ? '결제 후 기록에 실패해 결제를 취소했습니다. 다시 청구할 수 있습니다.'
          : `${e?.message ?? '청구하지 못했습니다.'} 결제되지 않았습니다. 다시 청구할 수 있습니다.`,
    });
  });

  // An attempt whose outcome was lost (or cut off by a restart). The package settles it, and the
  // attempt follows: while it holds the charge open, nothing is done here (409). Held no more,
  // the same charge is repeated: a closed record answers without sending (approved, or not
  // charged), and one never written (the process died before the charge left) is sent now.
  // No outcome is recorded by hand: the operator's reading of the merchant admin may be undone
  // by a reversal the package still has to make.
  router.post('/charges/:moid/resolve', async (req, res) => {
    const c = billing.charge(req.params.moid);
    if (!c || !unsettled(c))
      return listPage(req, res, 409, { error: '확인할 청구가 아닙니다. 아무것도 바꾸지 않았습니다.' });
    const held = await heldRecords(ctx, 'billing.charge');
    const u = held?.get(c.moid)?.[0];
    if (!held || u || field(req.body, 'outcome') !== '') {
      audit(logger, req, 'billing.charge.resolve.refused', { subscription: c.subscriptionId, moid: c.moid });
      return listPage(req, res, 409, {
        error: u
          ? `${c.moid}는 결제 모듈이 정산하고 있습니다 (${u.reason}). 정산이 끝나면 청구 내역이 따라 바뀝니다. 아무것도 바꾸지 않았습니다.`
          : !held
            ? '결제 장부를 읽지 못했습니다. 잠시 후 다시 확인해 주세요. 아무것도 바꾸지 않았습니다.'
            : '청구 결과는 직접 기록하지 않습니다. "결과 확인"으로 확인해 주세요. 아무것도 바꾸지 않았습니다.',
      });
    }
    const bid = billing.bidOf(c.subscriptionId);
    if (!bid)
      return listPage(req, res, 409, {
        error: `${c.moid}의 구독 카드가 삭제되어 같은 청구로 확인할 수 없습니다. 결제 정산 페이지에서 확인해 주세요.`,
      });
    const sent = await sendCharge(c, bid);
    const after = billing.charge(c.moid)!;
    audit(logger, req, 'billing.charge.checked', {
      subscription: c.subscriptionId,
      moid: c.moid,
      status: after.status,
      ...('err' in sent ? { code: (sent.err as { code?: string }).code } : {}),
    });
    if (after.status === 'unknown')
      return listPage(req, res, 502, {
        error: `${c.moid}의 결과를 아직 알 수 없습니다. 결제 모듈이 자동으로 정산합니다.`,
      });
    const text = `${c.moid}: ${CHARGE_LABEL[after.status]}${after.message ? ` (${after.message})` : ''}`;
    redirectWithNotice(req, res, '/admin/billing', after.status === 'approved' ? { ok: text } : { error: text });
  });

  router.post('/:id/remove', async (req, res, next) => {
    const id = Number(req.params.id);
    const bid = billing.bidOf(id);
    if (!bid) return listPage(req, res, 404, { error: '삭제할 카드가 없습니다.' });
    try {
      const r = await nicepay.billing.remove({ bid, moid: `SUBRM-${id}-${randomBytes(4).toString('hex')}` });
      audit(logger, req, 'billing.remove', { subscription: id, status: r.status });
      if (r.status === 'refused') return listPage(req, res, 409, { error: `카드를 삭제하지 못했습니다: ${r.message}` });
      billing.markRemoved(id);
      redirectWithNotice(req, res, '/admin/billing', { ok: `구독 ${id}번의 카드를 삭제했습니다.` });
    } catch (err) {
      const e = operatorError(err);
      if (!e) return next(err);
      listPage(req, res, e.status, { error: e.message });
    }
  });

  return router;
}
