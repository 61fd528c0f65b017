/**
 * What the back office shows of orders and their refunds (the routes are ./admin-orders.ts):
 * the order list, one order's details from its one state (../order-state.ts), the refund or
 * cancel form, the open refund to resolve, and the refund history with each refund's payout.
 *
 * Words follow what happens to the money: an unpaid virtual account is *cancelled* (nothing
 * was paid, nothing goes back); a card is *refunded* at once; a paid virtual account's refund
 * is *accepted* by NICEPAY and paid out to the refund account later ("지급 전" until then).
 */
import type { Request } from 'express';
import { csrfInput } from '../admin-auth.js';
import type { Order } from '../db.js';
import type { RefundIntent } from '../db-refunds.js';
import { dataTable, type Column } from '../data-table.js';
import { BANKS, bankName } from '../korean.js';
import { STATE_LABEL, orderState } from '../order-state.js';
import { METHOD_LABEL, bankSelect, html, kstDateTime, won, type SafeHtml } from '../views.js';
import type { CheckoutResult, PayMethod, UnsettledItem } from '../../src/index.js';

/** The refund form's fields as posted (strings), kept when the form comes back with an error. */
export interface RefundForm {
  amount: string;
  reason: string;
  bankCode: string;
  number: string;
  holder: string;
}

/** What is still refundable. */
export const remaining = (o: Order): number => o.amount - o.refundedAmount;
/** An unpaid virtual account: the order is cancelled whole, nothing was paid and nothing goes back. */
export const cancelsUnpaid = (o: Order): boolean => o.status === 'awaiting-deposit';
/** A paid virtual account is refunded to an account; an unpaid one is cancelled without one. */
export const needsRefundAccount = (o: Order): boolean => o.method === 'VBANK' && o.status === 'paid';
/**
 * Why the order can only be refunded in full, or undefined: a phone bill is never cancelled in
 * part, nor a card payment whose approval said so (CcPartCl 0), nor an unpaid virtual account.
 */
export function wholeOnly(o: Order): string | undefined {
  if (cancelsUnpaid(o)) return '입금 전 가상계좌';
  if (o.method === 'CELLPHONE') return '휴대폰 결제';
  const r = o.result ? (JSON.parse(o.result) as CheckoutResult) : undefined;
  if (r?.status === 'approved' && r.payment.method === 'CARD' && !r.payment.card.partialCancelAllowed)
    return '부분취소가 안 되는 카드 결제';
  return undefined;
}
/** Whether the order can be refunded (or, unpaid, cancelled) now. */
export const refundable = (o: Order): boolean =>
  (o.status === 'paid' || o.status === 'awaiting-deposit') && o.tid !== null && remaining(o) > 0;
/** A full refund: the package settles a lost one by sending the same cancel again ("already cancelled" if it went through). */
export const resendable = (i: RefundIntent): boolean => !i.partial && i.amount === i.remainingBefore;

/** A refund account for the operator: bank by name, the number masked to its last 4 digits. */
export const accountLabel = (bankCode: string, number: string, holder: string): string =>
  `${bankName(bankCode)} ****${number.slice(-4)} (${holder})`;

const methodLabel = (o: Order): string => (o.method ? (METHOD_LABEL[o.method as PayMethod] ?? o.method) : '-');

/** The back-office order list: every order with a transaction, what was refunded and what remains. */
export function ordersTable(orders: readonly Order[]): SafeHtml {
  const columns: Array<Column<Order>> = [
    { label: '주문번호', kind: 'moid', cell: (o) => html`<a href="/admin/orders/${o.moid}">${o.moid}</a>` },
    { label: '상품', kind: 'goods', cell: (o) => o.goods },
    { label: '결제수단', kind: 'method', cell: methodLabel },
    { label: '결제 금액', kind: 'amount', cell: (o) => won(o.amount) },
    { label: '환불·취소', kind: 'amount', cell: (o) => won(o.refundedAmount) },
    // An unpaid virtual account holds no money yet: nothing of it reads as paid.
    { label: '남은 금액', kind: 'amount', cell: (o) => (cancelsUnpaid(o) ? '입금 전' : won(remaining(o))) },
    {
      label: '상태',
      kind: 'status',
      cell: (o) => STATE_LABEL[orderState(o)],
      extraClass: (o) => `status-${orderState(o)}`,
    },
  ];
  return dataTable('admin-orders', columns, orders, (o) => ({ moid: o.moid, status: orderState(o) }));
}

/** The order's details: state, amounts (what was refunded, of it still to be paid out, what remains). */
export function orderDetails(o: Order): SafeHtml {
  const state = orderState(o);
  return html`<div class="card"><dl id="admin-order">
<dt>주문번호</dt><dd id="admin-order-moid" class="moid">${o.moid}</dd>
<dt>상품</dt><dd>${o.goods}</dd><dt>결제수단</dt><dd>${methodLabel(o)}</dd>
<dt>거래번호</dt><dd id="admin-order-tid" class="tid">${o.tid ?? '-'}</dd>
<dt>상태</dt><dd id="admin-order-status" class="status-${state}" data-status="${state}">${STATE_LABEL[state]}</dd>
<dt>결제 금액</dt><dd id="admin-order-amount">${won(o.amount)}</dd>
<dt>${cancelsUnpaid(o) ? '취소한 금액' : '환불한 금액'}</dt><dd id="admin-order-refunded">${won(o.refundedAmount)}</dd>
${o.refundPendingAmount > 0 && html`<dt>지급 전 환불</dt><dd id="admin-order-refund-pending" data-amount="${o.refundPendingAmount}">${won(o.refundPendingAmount)}</dd>`}
<dt>${cancelsUnpaid(o) ? '입금 대기 금액' : '남은 금액'}</dt><dd id="admin-order-remaining" data-amount="${remaining(o)}">${won(remaining(o))}${cancelsUnpaid(o) ? ' (입금 전)' : ''}</dd></dl></div>`;
}

/** The refund form (or, for an unpaid virtual account, the cancel form), with what was typed. */
export function refundForm(req: Request, o: Order, v: Partial<RefundForm>): SafeHtml {
  const unpaid = cancelsUnpaid(o);
  const whole = wholeOnly(o);
  return html`<form id="refund-form" class="card" method="post" action="/admin/orders/${o.moid}/refund"><h2>${unpaid ? '주문 취소 (입금 전 가상계좌: 전액)' : '환불'}</h2>${csrfInput(req)}
${unpaid && html`<p class="muted">입금 전이라 돌려드릴 돈은 없습니다. 취소하면 가상계좌가 닫혀 입금할 수 없게 됩니다.</p>`}
${whole && !unpaid && html`<p class="muted" id="refund-whole-only">${whole}는 남은 금액 전액만 환불할 수 있습니다.</p>`}
<label>금액 (원) <input type="text" name="amount" id="refund-amount" inputmode="numeric" required value="${whole ? String(remaining(o)) : (v.amount ?? String(remaining(o)))}"${whole ? html` readonly` : ''}></label>
<label>사유 <input type="text" name="reason" id="refund-reason" required maxlength="50" value="${v.reason ?? '고객 요청'}"></label>
${
  needsRefundAccount(o) &&
  html`<fieldset id="refund-account"><legend>환불 계좌 (입금된 가상계좌)</legend>
<p class="muted">NICEPAY가 환불을 접수한 뒤 이 계좌로 지급합니다. 지급되기 전까지 주문은 "환불 접수 (지급 전)"으로 표시됩니다.</p>
<label>은행 ${bankSelect('bankCode', 'refund-bank', v.bankCode, BANKS)}</label>
<label>계좌번호 <input type="text" name="number" id="refund-number" required inputmode="numeric" value="${v.number ?? ''}"></label>
<label>예금주 <input type="text" name="holder" id="refund-holder" required value="${v.holder ?? ''}"></label></fieldset>`
}
<div class="actions"><button type="submit" id="refund-submit">${unpaid ? '주문 취소' : '환불하기'}</button></div></form>`;
}

/** The confirmation of a refund or cancel: what, of which order, how much, to which account. */
export function confirmSummary(o: Order, amount: number, partial: boolean, v: RefundForm): SafeHtml {
  const target = html`<strong id="confirm-target">${o.moid} (${o.goods})</strong>`;
  if (cancelsUnpaid(o)) {
    return html`주문 ${target}의 가상계좌를 입금 전에 취소합니다 (<strong id="confirm-amount">${won(amount)}</strong>). 구매자에게 돌려줄 돈은 없고, 가상계좌가 닫혀 입금할 수 없게 됩니다.`;
  }
  const account = needsRefundAccount(o)
    ? ` 환불 계좌 ${accountLabel(v.bankCode, v.number, v.holder)}로 지급되며, NICEPAY가 지급하기 전까지는 "지급 전"으로 표시됩니다.`
    : '';
  return html`주문 ${target}의 <strong id="confirm-amount">${won(amount)}</strong>을 ${partial ? '부분' : '전액'} 환불합니다. 남은 금액: ${won(remaining(o) - amount)}.${account}`;
}

const PAYOUT_LABEL: Readonly<Record<RefundIntent['payout'], string>> = {
  none: '-',
  pending: '지급 전',
  paid: '지급 완료',
};

/**
 * The order's refunds: amount, account, result and payout. A refund accepted but not paid
 * out offers "지급 완료 기록": it sends nothing to NICEPAY, it records in the shop the payout
 * the operator saw in NICEPAY's merchant admin (the gateway sends no notice of it, and the
 * status inquiry does not tell accepted from paid out).
 */
export function refundHistory(req: Request, o: Order, intents: readonly RefundIntent[]): SafeHtml | false {
  if (intents.length === 0) return false;
  const columns: Array<Column<RefundIntent>> = [
    { label: '요청 일시', kind: 'date', cell: (i) => kstDateTime(new Date(i.createdAt)) },
    { label: '금액', kind: 'amount', cell: (i) => won(i.cancelledAmount ?? i.amount) },
    {
      label: '구분',
      kind: 'status',
      cell: (i) => (i.bankCode === '' && cancelsUnpaid(o) ? '주문 취소' : i.partial ? '부분 환불' : '전액 환불'),
    },
    { label: '환불 계좌', kind: 'text', cell: (i) => (i.number ? accountLabel(i.bankCode, i.number, i.holder) : '-') },
    { label: '결과', kind: 'text', cell: (i) => i.note || '처리 중' },
    {
      label: '지급',
      kind: 'status',
      cell: (i) =>
        i.paidOutAt ? `${PAYOUT_LABEL.paid} (${kstDateTime(new Date(i.paidOutAt))})` : PAYOUT_LABEL[i.payout],
    },
    {
      label: '관리',
      kind: 'actions',
      cell: (i) =>
        i.payout === 'pending' &&
        html`<form method="post" action="/admin/orders/${o.moid}/refunds/${String(i.id)}/paid-out" class="inline">${csrfInput(req)}<button type="submit" class="secondary" id="paid-out-${String(i.id)}">지급 완료 기록</button></form>`,
    },
  ];
  const pending = intents.some((i) => i.payout === 'pending');
  return html`<h2>환불 내역</h2>${dataTable('refunds', columns, intents, (i) => ({ intent: i.id, state: i.state, payout: i.payout }))}
${pending && html`<p class="muted" id="payout-note">"지급 전" 환불은 NICEPAY가 환불 계좌로 지급해야 끝납니다. NICEPAY는 지급을 통보하지 않으므로, 가맹점 관리자에서 지급을 확인한 뒤 "지급 완료 기록"을 눌러 주세요. 이 버튼은 NICEPAY에 아무것도 보내지 않고 상점의 기록만 바꿉니다. 샌드박스는 환불을 지급하지 않습니다.</p>`}`;
}

/**
 * The order's open refund, in place of the refund form: what is known and who settles it. A full
 * refund is the package's: while nicepay.unsettled() lists its cancel (`held`), the panel says
 * so, with why and when it is tried next, and offers nothing; held no more, "결과 확인" repeats
 * the same cancel (the library answers from its closed record). A partial refund is never sent
 * again by the package: the operator records what NICEPAY's merchant admin shows.
 */
export function unresolvedPanel(
  req: Request,
  o: Order,
  i: RefundIntent,
  busy: boolean,
  held: UnsettledItem | 'unknown' | undefined,
): SafeHtml {
  const action = `/admin/orders/${encodeURIComponent(o.moid)}/refunds/${i.id}/resolve`;
  const settling =
    held === 'unknown'
      ? html`<p class="muted" id="refund-settling">결제 장부를 읽지 못했습니다. 잠시 후 다시 확인해 주세요.</p>`
      : held &&
        html`<p id="refund-settling" data-attempts="${String(held.attempts)}">결제 모듈이 같은 전액 취소(같은 요청 키)를 다시 보내 자동으로 정산하고 있습니다. 사유: ${held.reason}. 다음 확인: ${kstDateTime(held.nextAttemptAt)} (${String(held.attempts)}회 시도)${held.needsAttention ? ' · 확인 필요' : ''}. 정산이 끝나면 이 환불의 기록이 따라 바뀝니다. <a href="/admin/settlement">결제 정산</a>에서 지금 정산할 수 있습니다.</p>`;
  return html`<div id="refund-unresolved" class="card" data-intent="${String(i.id)}" data-state="${i.state}"><h2>확인이 필요한 환불</h2>
<p id="refund-unresolved-summary">${won(i.amount)} ${i.partial ? '부분' : '전액'} 환불 요청(${kstDateTime(new Date(i.createdAt))})의 ${busy ? '처리가 아직 끝나지 않았습니다' : '결과를 알 수 없습니다'}. 결과가 정해지기 전에는 이 주문의 새 환불을 할 수 없습니다.</p>
${
  busy
    ? false
    : resendable(i)
      ? settling ||
        html`<form method="post" action="${action}" class="inline">${csrfInput(req)}<p class="muted">결제 모듈에 이 환불의 정산 기록이 남아 있지 않습니다. 같은 전액 취소(같은 요청 키)로 결과를 확인합니다: 정산된 취소는 보내지 않고 그 결과로 답하며, 이미 환불되었다면 NICEPAY가 '이미 취소된 거래'로 답하므로 두 번 환불되지 않습니다.</p>
<div class="actions"><button type="submit" id="resolve-submit">결과 확인</button></div></form>`
      : html`<form method="post" action="${action}" class="inline">${csrfInput(req)}<p class="muted" id="refund-partial-note">부분 환불은 결제 모듈이 다시 보내지 않습니다 (두 번 환불될 수 있고, 거래 상태 조회에 나타나지 않습니다). NICEPAY 가맹점 관리자에서 이 환불이 처리되었는지 확인한 뒤 기록해 주세요.</p>
<div class="actions"><button type="submit" name="outcome" value="status" class="secondary" id="resolve-status">거래 상태 조회</button>
<button type="submit" name="outcome" value="refunded" id="resolve-refunded">환불된 것으로 기록</button>
<button type="submit" name="outcome" value="not-refunded" class="secondary" id="resolve-not-refunded">환불되지 않은 것으로 기록</button></div></form>`
}</div>`;
}
