/**
 * The back office, behind a login and CSRF tokens (../admin-auth.ts):
 *
 *   GET  /admin/login, POST /admin/login, POST /admin/logout
 *   GET  /admin                    payout balance (nicepay.payout.balance)
 *   GET  /admin/sub-merchants      sub-merchants registered through this page (kept in SQLite) + register form
 *   POST /admin/sub-merchants      nicepay.payout.registerSubMerchant, then saved in SQLite
 *   /admin/orders                  refunds (nicepay.cancel) and the sandbox deposit button: ./admin-orders.ts
 *   /admin/payouts                 payout request (with a confirmation step) and cancel: ./admin-payouts.ts
 *   /admin/recon                   cash-receipt reconciliation and CSV: ./admin-recon.ts
 *   /admin/billing                 subscriptions and their monthly charges, cash receipts: ./admin-billing.ts
 *   /admin/settlement              payments not settled with NICEPAY yet, and "지금 정산": ./admin-settlement.ts
 *
 * Errors are shown per error code (../korean.ts); a form that failed comes back with what the
 * operator typed.
 */
import type { Router, Request, Response } from 'express';
import { shopRouter } from './router.js';
import { redirectWithNotice, takeNotice } from '../admin-notice.js';
import type { ShopContext } from '../shop-context.js';
import { adminGuard, audit, csrfInput, type AdminCredentials } from '../admin-auth.js';
import { dataTable, type Column } from '../data-table.js';
import { BANKS, bankName, operatorError, withParticle } from '../korean.js';
import { bankSelect, html, won } from '../views.js';
import { adminPage, errorNotice, field, fmtDate, okNotice } from './admin-page.js';
import { adminOrderRoutes } from './admin-orders.js';
import { adminPayoutRoutes } from './admin-payouts.js';
import { adminReconRoutes } from './admin-recon.js';
import { adminBillingRoutes } from './admin-billing.js';
import { adminSettlementRoutes } from './admin-settlement.js';

const SCHEMA = `CREATE TABLE IF NOT EXISTS admin_sub_merchants (
  sub_id TEXT PRIMARY KEY, sub_nm TEXT NOT NULL, sub_co_no TEXT NOT NULL, bank_cd TEXT NOT NULL,
  accnt_no TEXT NOT NULL, accnt_nm TEXT NOT NULL, memo TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL
)`;

/** A sub-merchant registered through the back office. */
export interface SubMerchantRow {
  sub_id: string;
  sub_nm: string;
  sub_co_no: string;
  bank_cd: string;
  accnt_no: string;
  accnt_nm: string;
  memo: string;
  created_at: string;
}

const SUB_FIELDS = ['subId', 'subNm', 'subCoNo', 'bankCd', 'accntNo', 'accntNm', 'memo'] as const;
type SubInput = Record<(typeof SUB_FIELDS)[number], string>;

/** The sub-merchants table: the bank by name, not its code. */
const SUB_COLUMNS: ReadonlyArray<Column<SubMerchantRow>> = [
  { label: '서브몰 ID', kind: 'id', cell: (s) => s.sub_id },
  { label: '상호', kind: 'text', cell: (s) => s.sub_nm },
  { label: '사업자번호', kind: 'id', cell: (s) => s.sub_co_no },
  { label: '은행', kind: 'method', cell: (s) => bankName(s.bank_cd) },
  { label: '계좌번호', kind: 'id', cell: (s) => s.accnt_no },
  { label: '예금주', kind: 'text', cell: (s) => s.accnt_nm },
  { label: '메모', kind: 'text', cell: (s) => s.memo },
];

/** The back-office router (login, guard and every page), mounted at `/admin`. */
export function adminRoutes(ctx: ShopContext, creds: AdminCredentials, sessionSecret?: string): Router {
  const { db, nicepay, logger } = ctx;
  db.sqlite.exec(SCHEMA);
  const q = {
    list: db.sqlite.prepare<[], SubMerchantRow>('SELECT * FROM admin_sub_merchants ORDER BY created_at, rowid'),
    upsert:
      db.sqlite.prepare(`INSERT INTO admin_sub_merchants (sub_id, sub_nm, sub_co_no, bank_cd, accnt_no, accnt_nm, memo, created_at)
      VALUES (@subId, @subNm, @subCoNo, @bankCd, @accntNo, @accntNm, @memo, @createdAt)
      ON CONFLICT(sub_id) DO UPDATE SET sub_nm = excluded.sub_nm, bank_cd = excluded.bank_cd, accnt_no = excluded.accnt_no, accnt_nm = excluded.accnt_nm, memo = excluded.memo`),
  };
  const router = shopRouter();
  router.use(adminGuard(creds, logger, sessionSecret));

  router.get('/', async (req, res, next) => {
    try {
      const bal = await nicepay.payout.balance();
      const kind = { settlement: '정산금', deposit: '현금 입금', payout: '서브몰 지급', unknown: '기타' }[
        bal.last?.kind ?? 'unknown'
      ];
      adminPage(
        req,
        res,
        200,
        '지급 잔액',
        html`<div class="card"><dl>
<dt>상점 아이디</dt><dd id="balance-mid">${bal.mid}</dd>
<dt>지급 가능 잔액</dt><dd id="balance-amount" class="price" data-amount="${bal.remainAmt}">${won(bal.remainAmt)}</dd>
${bal.last && html`<dt>최근 거래</dt><dd id="balance-last">${fmtDate(bal.last.date)} ${kind} ${won(bal.last.amount)}</dd>`}</dl></div>`,
      );
    } catch (err) {
      const e = operatorError(err);
      if (!e) return next(err);
      adminPage(req, res, 502, '지급 잔액', html`${errorNotice(e.message)}`);
    }
  });

  function subMerchantsPage(
    req: Request,
    res: Response,
    status: number,
    opts: { error?: string; ok?: string; values?: Partial<SubInput> } = {},
  ): void {
    const v = opts.values ?? {};
    const rows = q.list.all();
    const input = (name: keyof SubInput, id: string, label: string, extra = html``) =>
      html`<label>${label} <input type="text" name="${name}" id="${id}" value="${v[name] ?? ''}"${extra}></label>`;
    adminPage(
      req,
      res,
      status,
      '서브몰 관리',
      html`${errorNotice(opts.error)}${okNotice(opts.ok)}
${
  rows.length === 0
    ? html`<p id="no-sub-merchants" class="muted">이 화면에서 등록한 서브몰이 없습니다.</p>`
    : dataTable('sub-merchants', SUB_COLUMNS, rows, (s) => ({ 'sub-id': s.sub_id }))
}
<form id="sub-merchant-form" class="card" method="post" action="/admin/sub-merchants"><h2>서브몰 등록</h2>${csrfInput(req)}
${input('subId', 'sub-id', '서브몰 ID', html` required maxlength="50"`)}
${input('subNm', 'sub-nm', '상호', html` required`)}
${input('subCoNo', 'sub-co-no', '사업자등록번호', html` required inputmode="numeric"`)}
<label>은행 ${bankSelect('bankCd', 'bank-cd', v.bankCd, BANKS)}</label>
${input('accntNo', 'accnt-no', '계좌번호', html` required`)}
${input('accntNm', 'accnt-nm', '예금주', html` required`)}
${input('memo', 'sub-memo', '메모')}
<div class="actions"><button type="submit" id="sub-merchant-submit">등록</button></div></form>`,
    );
  }

  router.get('/sub-merchants', (req, res) => {
    subMerchantsPage(req, res, 200, takeNotice(req));
  });

  router.post('/sub-merchants', async (req, res, next) => {
    const input = Object.fromEntries(SUB_FIELDS.map((k) => [k, field(req.body, k)])) as SubInput;
    try {
      await nicepay.payout.registerSubMerchant(input);
      q.upsert.run({ ...input, createdAt: new Date().toISOString() });
      // The account number is the sub-merchant's payout target, not a secret; no key is logged.
      audit(logger, req, 'sub-merchant.register', { subId: input.subId, bankCd: input.bankCd });
      redirectWithNotice(req, res, '/admin/sub-merchants', {
        ok: `서브몰 ${withParticle(input.subId, '을/를')} 등록했습니다.`,
      });
    } catch (err) {
      const e = operatorError(err);
      if (!e) return next(err);
      subMerchantsPage(req, res, e.status, { error: e.message, values: input });
    }
  });

  router.use('/orders', adminOrderRoutes(ctx));
  router.use(
    '/payouts',
    adminPayoutRoutes(ctx, () => q.list.all()),
  );
  router.use('/recon', adminReconRoutes(ctx));
  router.use('/billing', adminBillingRoutes(ctx));
  router.use('/settlement', adminSettlementRoutes(ctx));
  return router;
}
