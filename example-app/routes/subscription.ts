/**
 * The subscription sign-up (recurring billing, nicepay.billing.register):
 *
 *   GET  /subscription          the plan, this browser's subscriptions, and the card form (key-in
 *                               style, server-rendered)
 *   POST /subscription          registers the card into a billing key (BID), stores it encrypted
 *                               (../db-billing.ts), 303 → GET /subscription/:id (post/redirect/get)
 *   GET  /subscription/:id      the subscription: plan, card (masked), this month's charge (paid,
 *                               declined, being checked) and every charge; shown only to the
 *                               browser that registered it or its signed link, like an order
 *                               (../order-access.ts), since the ids are sequential
 *
 * Card data reaches this server as on the key-in page, with the same rule: HTTPS only, except the
 * embedded sandbox on loopback. It is passed to nicepay.billing.register and nothing else: never
 * logged, stored or rendered back (a form with an error comes back with the card fields empty).
 * The back office charges the subscription monthly (./admin-billing.ts).
 */
import express, { type Router, type Request, type Response } from 'express';
import { shopRouter } from './router.js';
import { randomBytes } from 'node:crypto';
import { isNicepayError } from '../../src/index.js';
import { SANDBOX_TEST_CARDS } from '../../src/sandbox/keyin/cards.js';
import type { ShopContext } from '../shop-context.js';
import { billingDb, PLAN, type ChargeStatus, type Subscription, type SubscriptionCharge } from '../db-billing.js';
import { dataTable, type Column } from '../data-table.js';
import { checkFieldMessage } from '../korean.js';
import { html, sendPage, won, type SafeHtml } from '../views.js';
import { kstToday } from './admin-page.js';
import { isLocalSandbox } from './keyin.js';
import { DEMO_BUYER } from './products.js';

/** A subscription's key in the shop's ownership table (order-access.ts), apart from Moids. */
const accessKey = (id: number): string => `subscription:${id}`;

/** A charge attempt in the buyer's words: an open one is being checked, not "paid". */
const BUYER_CHARGE_LABEL: Readonly<Record<ChargeStatus, string>> = {
  charging: '결제 확인 중',
  unknown: '결제 확인 중',
  approved: '결제 완료',
  declined: '결제 거절',
  failed: '결제되지 않음',
};

/** The buyer's charges: month, amount, result (a decline with the card company's reason). */
const CHARGE_COLUMNS: ReadonlyArray<Column<SubscriptionCharge>> = [
  { label: '월', kind: 'date', cell: (c) => `${c.month.slice(0, 4)}년 ${Number(c.month.slice(4))}월` },
  { label: '금액', kind: 'amount', cell: (c) => won(c.amount) },
  {
    label: '결과',
    kind: 'text',
    cell: (c) => `${BUYER_CHARGE_LABEL[c.status]}${c.status === 'declined' && c.message ? ` (${c.message})` : ''}`,
    extraClass: (c) => `charge-${c.status}`,
  },
];

/** The headline of a subscription: ended, or this month's charge (declined is said, never "subscribed"). */
function headline(
  sub: Subscription,
  current: SubscriptionCharge | undefined,
  month: string,
): { text: string; note: string | false; state: string } {
  const m = `${Number(month.slice(4))}월`;
  if (sub.status === 'removed') return { text: '구독이 해지되었습니다', note: false, state: 'removed' };
  switch (current?.status) {
    case 'approved':
      return { text: `구독 중입니다 · ${m} 결제 완료`, note: false, state: 'paid' };
    case 'declined':
    case 'failed':
      return {
        text: `${m} 구독료가 결제되지 않았습니다`,
        note: `${current.status === 'declined' ? '카드사가 결제를 거절했습니다. ' : ''}카드의 한도나 유효기간을 확인해 주세요. 상점이 다시 청구해 결제되면 이 페이지에 표시됩니다.`,
        state: current.status,
      };
    case 'charging':
    case 'unknown':
      return { text: `${m} 구독료 결제를 확인하고 있습니다`, note: false, state: 'checking' };
    default:
      return { text: '구독 중입니다', note: `${m} 구독료는 아직 청구되지 않았습니다.`, state: 'not-charged' };
  }
}

/** The subscription pages, mounted at `/subscription`. */
export function subscriptionRoutes(ctx: ShopContext): Router {
  const { nicepay, logger } = ctx;
  const billing = billingDb(ctx.db, ctx.merchantKey);
  const onSandbox = isLocalSandbox(ctx.windowUrl);
  const router = shopRouter();

  /** This browser's subscriptions, linked (a buyer finds their subscription again from the navigation). */
  function mine(req: Request): SafeHtml | false {
    const owned = ctx.access.owned(req);
    const subs = billing.subscriptions().filter((s) => owned.has(accessKey(s.id)));
    return (
      subs.length > 0 &&
      html`<div class="card" id="my-subscriptions"><h2>내 구독</h2><ul>${subs.map((s) => html`<li><a href="/subscription/${String(s.id)}" id="my-subscription-${String(s.id)}">${PLAN.name} · ${s.cardName}카드</a> (${s.status === 'active' ? '구독 중' : '해지됨'})</li>`)}</ul></div>`
    );
  }

  function form(req: Request, res: Response, status: number, error?: string): void {
    const cards =
      onSandbox &&
      html`<div class="card muted" id="test-cards"><strong>샌드박스 테스트 카드</strong>
<ul>${Object.entries(SANDBOX_TEST_CARDS)
        .filter(([, c]) => c.outcome === 'approved' || c.outcome === 'limit-exceeded')
        .map(
          ([n, c]) =>
            html`<li>${c.outcome === 'approved' ? '등록·결제 가능' : '등록 가능, 매달 결제 거절 (한도 초과)'}: <code>${n}</code></li>`,
        )}</ul></div>`;
    sendPage(
      res,
      status,
      '정기구독',
      html`<h1>${PLAN.name}</h1>
${error && html`<p id="form-error" class="status-error">${error}</p>`}${mine(req)}
<div class="card"><p id="plan-price" class="price">매월 ${won(PLAN.price)}</p>
<form id="subscription-form" method="post" action="/subscription" autocomplete="off">
<label>카드번호 <input type="text" name="cardNumber" id="sub-card-number" inputmode="numeric" maxlength="23" required autocomplete="cc-number"></label>
<label>유효기간 (YYMM) <input type="text" name="cardExpiry" id="sub-card-expiry" inputmode="numeric" maxlength="4" required placeholder="3012"></label>
<label>생년월일 (YYMMDD, 선택) <input type="text" name="idNo" id="sub-id-no" inputmode="numeric" maxlength="10"></label>
<label>비밀번호 앞 2자리 (선택) <input type="password" name="cardPassword2" id="sub-card-password2" inputmode="numeric" maxlength="2"></label>
<button type="submit" id="subscription-submit">카드 등록하고 구독하기</button>
</form></div>
${cards}`,
    );
  }

  router.get('/', (req, res) => form(req, res, 200));

  router.post(
    '/',
    express.urlencoded({ extended: false, limit: '1kb', parameterLimit: 6 }),
    async (req: Request, res: Response, next) => {
      // Card data travels over TLS only; the embedded sandbox on loopback is plain HTTP.
      if (!onSandbox && !req.secure) {
        sendPage(res, 403, 'HTTPS 필요', html`<h1 class="status-error">카드 정보는 HTTPS로만 받습니다</h1>`);
        return;
      }
      const body = req.body as Record<string, unknown>;
      const text = (k: string): string => (typeof body[k] === 'string' ? (body[k] as string).trim() : '');
      const expiry = text('cardExpiry');
      try {
        const r = await nicepay.billing.register({
          moid: `SUBREG-${randomBytes(6).toString('hex')}`,
          card: {
            number: text('cardNumber'),
            expYear: expiry.slice(0, 2),
            expMonth: expiry.slice(2),
            ...(text('idNo') ? { idNo: text('idNo') } : {}),
            ...(text('cardPassword2') ? { password2: text('cardPassword2') } : {}),
          },
          buyer: { name: DEMO_BUYER.name },
        });
        if (r.status === 'refused') {
          logger.info({ resultCode: r.code }, 'example shop: card registration refused');
          form(req, res, 402, `카드를 등록하지 못했습니다: ${r.message}`);
          return;
        }
        const sub = billing.addSubscription({
          buyerName: DEMO_BUYER.name,
          bid: r.bid,
          bidMasked: r.bidMasked,
          cardName: r.card.name,
        });
        ctx.access.grant(req, res, accessKey(sub.id));
        res.redirect(303, ctx.access.signedLink(`/subscription/${sub.id}`, accessKey(sub.id)));
      } catch (err) {
        if (isNicepayError(err) && err.code === 'NICEPAY_FIELD_INVALID') {
          form(req, res, 400, checkFieldMessage((err as { field?: string }).field));
          return;
        }
        next(err);
      }
    },
  );

  router.get('/:id', (req, res) => {
    const sub = billing.subscription(Number(req.params.id));
    // Another browser gets the same 404 as for no subscription, so ids cannot be probed.
    if (!sub || !ctx.access.mayView(req, accessKey(sub.id))) {
      sendPage(
        res,
        404,
        '구독 없음',
        html`<h1 class="status-error">구독을 찾을 수 없습니다</h1><p><a class="line-link" href="/subscription">구독하기</a></p>`,
      );
      return;
    }
    const month = kstToday(ctx.clock()).slice(0, 6);
    const charges = billing.charges(sub.id);
    const h = headline(sub, billing.monthCharge(sub.id, month), month);
    const tone =
      h.state === 'paid'
        ? 'ok'
        : h.state === 'declined' || h.state === 'failed' || h.state === 'removed'
          ? 'bad'
          : 'wait';
    sendPage(
      res,
      200,
      '정기구독',
      html`<h1 id="subscription-status" class="tone-${tone}" data-status="${sub.status}" data-month="${h.state}">${h.text}</h1>
${h.note && html`<p id="subscription-note" class="card tone-${tone}">${h.note}</p>`}
<div class="card"><dl><dt>상품</dt><dd id="subscription-plan">${PLAN.name}</dd><dt>월 결제 금액</dt><dd class="price">${won(PLAN.price)}</dd>
<dt>카드</dt><dd id="subscription-card">${sub.cardName}카드</dd></dl></div>
<h2>결제 내역</h2>
${charges.length === 0 ? html`<p id="no-charges" class="muted">아직 청구된 달이 없습니다.</p>` : dataTable('charges', CHARGE_COLUMNS, charges, (c) => ({ month: c.month, status: c.status }))}`,
    );
  });
  return router;
}
