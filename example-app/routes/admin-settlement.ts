/**
 * Payments NICEPAY and the shop do not agree on yet (mounted at /admin/settlement, behind the
 * login and CSRF guard):
 *
 *   GET  /admin/settlement   nicepay.unsettled(): every open payment of the ledger, why it is
 *                            open, when settlement tries it next, and whether it needs attention
 *   POST /admin/settlement   "지금 정산": one nicepay.settle() pass now, then 303 back to the
 *                            list with the pass's report (what it settled, and how)
 *
 * The shop's client runs the same pass every minute by itself (createNicepay's settler); the
 * button only saves the wait. A payment settlement keeps runs onApproved as the checkout did, so
 * the order is marked paid; one it reverses or finds never charged leaves the order unpaid: the
 * order ends as NICEPAY holds it. Each pass from here leaves an audit line.
 */
import type { Router, Request, Response } from 'express';
import { shopRouter } from './router.js';
import type { LedgerOperation, LedgerState, SettledItem, SettledOutcome, UnsettledItem } from '../../src/index.js';
import type { ShopContext } from '../shop-context.js';
import { audit, csrfInput } from '../admin-auth.js';
import { dataTable, type Column } from '../data-table.js';
import { html, kstDateTime, won, type SafeHtml } from '../views.js';
import { adminPage, errorNotice, okNotice } from './admin-page.js';

declare module 'express-session' {
  interface SessionData {
    /** The last "지금 정산" pass's report, shown once by the page it redirects to. */
    settleReport?: { settled: SettledItem[]; open: number };
  }
}

/** What each operation is, in the back office's words. */
const OPERATION: Readonly<Record<LedgerOperation, string>> = {
  approval: '결제 승인',
  keyin: '카드 직접 결제',
  'billing.charge': '정기결제 청구',
  'cash-receipt': '현금영수증',
  cancel: '취소·환불',
  payout: '하위몰 지급',
  'payout.cancel': '하위몰 지급 취소',
};

/** Where an open payment stands (docs/pipeline.md, "The state machine"). */
const STATE: Readonly<Record<LedgerState, string>> = {
  sending: '요청 중 끊김',
  committed: '기록 대기',
  unknown: '결과 모름',
  reversing: '취소 확인 중',
  recorded: '완료',
  declined: '거절',
  reversed: '취소됨',
  'never-charged': '결제 안 됨',
};

/** How settlement ended a payment. */
const OUTCOME: Readonly<Record<SettledOutcome, string>> = {
  kept: '결제 유지',
  reversed: '결제 취소',
  'never-charged': '결제 안 됨',
};

/** The shop's page of an order number, when the order is the shop's (a subscription charge's Moid is not). */
function orderCell(ctx: ShopContext, moid: string): SafeHtml | string {
  return ctx.db.order(moid) ? html`<a href="/admin/orders/${encodeURIComponent(moid)}">${moid}</a>` : moid;
}

/** The payment settlement page and its button. */
export function adminSettlementRoutes(ctx: ShopContext): Router {
  const { nicepay, logger } = ctx;
  const openColumns: ReadonlyArray<Column<UnsettledItem>> = [
    { label: '종류', kind: 'method', cell: (u) => OPERATION[u.operation] },
    { label: '거래번호', kind: 'tid', cell: (u) => u.tid },
    { label: '주문번호', kind: 'moid', cell: (u) => orderCell(ctx, u.moid) },
    { label: '금액', kind: 'amount', cell: (u) => won(u.amount) },
    { label: '상태', kind: 'status', cell: (u) => STATE[u.state] },
    // Whether the operator must act, and when settlement tries next, beside the state they follow.
    {
      label: '확인 필요',
      kind: 'status',
      cell: (u) => (u.needsAttention ? '확인 필요' : '자동 재시도'),
      extraClass: (u) => (u.needsAttention ? 'tone-bad' : 'tone-wait'),
    },
    { label: '다음 확인', kind: 'date', cell: (u) => kstDateTime(u.nextAttemptAt) },
    { label: '시도', kind: 'amount', cell: (u) => `${u.attempts}회` },
    { label: '사유', kind: 'text', cell: (u) => u.reason },
  ];
  const settledColumns: ReadonlyArray<Column<SettledItem>> = [
    { label: '종류', kind: 'method', cell: (s) => OPERATION[s.operation] },
    { label: '거래번호', kind: 'tid', cell: (s) => s.tid },
    { label: '주문번호', kind: 'moid', cell: (s) => orderCell(ctx, s.moid) },
    { label: '금액', kind: 'amount', cell: (s) => won(s.amount) },
    {
      label: '결과',
      kind: 'status',
      cell: (s) => OUTCOME[s.outcome],
      extraClass: (s) => (s.outcome === 'kept' ? 'tone-ok' : 'tone-bad'),
    },
  ];

  async function page(req: Request, res: Response, status: number, error?: string): Promise<void> {
    const report = req.session.settleReport;
    delete req.session.settleReport;
    let open: UnsettledItem[] | undefined;
    let listError: string | undefined;
    try {
      open = await nicepay.unsettled();
    } catch (err) {
      logger.error({ error: (err as Error).message }, 'example shop: the open payments could not be listed');
      listError = '결제 장부를 읽지 못했습니다. 잠시 후 다시 시도해 주세요.';
    }
    const attention = open?.filter((u) => u.needsAttention).length ?? 0;
    adminPage(
      req,
      res,
      status,
      '결제 정산',
      html`${errorNotice(error ?? listError)}
${
  report &&
  html`${okNotice(`정산을 실행했습니다. ${report.settled.length}건을 정리했고 ${report.open}건이 남았습니다.`)}
${report.settled.length > 0 && html`<h2>방금 정리한 결제</h2>${dataTable('settled', settledColumns, report.settled, (s) => ({ tid: s.tid, outcome: s.outcome }))}`}`
}
<form id="settle-form" class="card" method="post" action="/admin/settlement">${csrfInput(req)}
<p class="muted">응답을 받지 못했거나 취소가 확인되지 않아 NICEPAY와 상점의 기록이 아직 맞춰지지 않은 결제입니다. 자동 정산이 1분마다 NICEPAY에 다시 확인해 결제를 유지하거나 취소합니다. 지금 정산은 그 확인을 바로 한 번 실행합니다.</p>
<div class="actions"><button type="submit" id="settle-submit">지금 정산</button></div></form>
${
  open &&
  html`<h2>정산 대기 <span id="unsettled-count">${open.length}</span>건${attention > 0 && html` · <span id="attention-count" class="tone-bad">확인 필요 ${attention}건</span>`}</h2>
${
  open.length === 0
    ? html`<p id="no-unsettled" class="muted">정산할 결제가 없습니다. 모든 결제가 NICEPAY의 기록과 맞습니다.</p>`
    : dataTable('unsettled', openColumns, open, (u) => ({
        tid: u.tid,
        state: u.state,
        attention: u.needsAttention ? 'yes' : 'no',
      }))
}`
}`,
    );
  }

  const router = shopRouter();
  router.get('/', (req, res, next) => void page(req, res, 200).catch(next));

  router.post('/', async (req, res, next) => {
    try {
      const report = await nicepay.settle();
      audit(logger, req, 'settle', {
        settled: report.settled.map((s) => ({ tid: s.tid, outcome: s.outcome })),
        open: report.unsettled.length,
      });
      req.session.settleReport = { settled: report.settled, open: report.unsettled.length };
      req.session.save((err) => (err ? next(err) : res.redirect(303, '/admin/settlement')));
    } catch (err) {
      logger.error({ error: (err as Error).message }, 'example shop: a settlement pass from the back office failed');
      await page(
        req,
        res,
        502,
        '정산을 끝까지 실행하지 못했습니다. 잠시 후 다시 시도해 주세요. 이미 정리된 결제는 목록에서 빠집니다.',
      ).catch(next);
    }
  });
  return router;
}
