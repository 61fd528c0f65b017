/**
 * The back office (no authentication here: put it behind your own admin login!):
 *
 *   GET  /admin                    payout balance (nicepay.payout.balance)
 *   GET  /admin/sub-merchants      sub-merchants registered through this page (kept in SQLite) + register form
 *   POST /admin/sub-merchants      nicepay.payout.registerSubMerchant, then saved in SQLite
 *   GET  /admin/payouts?date=…     payout request form + results of a date (nicepay.payout.results)
 *   POST /admin/payouts            nicepay.payout.request
 *   GET  /admin/recon?date=YYYYMMDD[&orgSvcCd=02][&format=csv]
 *                                  cash receipts (nicepay.recon.cashReceipts); CSV is UTF-8 with a BOM
 *
 * Schedule rules (NicepayScheduleError: past date, holiday, 10:30 cut-off, 23:00-01:00
 * registration blackout, results from 16:00) are shown as a friendly Korean message; so are
 * the data host's refusals (NicepayDataApiError) and invalid fields.
 *
 * The recon query needs the merchant admin page's login id: NICEPAY_USR_ID, or `${mid}admin`
 * (the sandbox's default).
 */
import express, { Router, type Response } from 'express';
import {
  NicepayDataApiError, NicepayRequestError, NicepayScheduleError,
  type CashReceiptItem, type OrgSvcCd, type PayoutStatus,
} from '../../src/index.js';
import type { ShopContext } from '../app.js';
import { html, sendPage, won, type SafeHtml } from '../views.js';

const SCHEMA = `CREATE TABLE IF NOT EXISTS admin_sub_merchants (
  sub_id TEXT PRIMARY KEY, sub_nm TEXT NOT NULL, sub_co_no TEXT NOT NULL, bank_cd TEXT NOT NULL,
  accnt_no TEXT NOT NULL, accnt_nm TEXT NOT NULL, memo TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL
)`;

interface SubMerchantRow { sub_id: string; sub_nm: string; sub_co_no: string; bank_cd: string; accnt_no: string; accnt_nm: string; memo: string; created_at: string }

export const PAYOUT_STATUS_LABEL: Readonly<Record<PayoutStatus, string>> = {
  requested: '요청', succeeded: '지급 완료', failed: '지급 실패', retrying: '재요청 진행 중', deleted: '삭제', unknown: '알 수 없음',
};

const SCHEDULE_MESSAGE: Readonly<Record<string, string>> = {
  'past-date': '지난 날짜로는 요청할 수 없습니다.',
  'non-business-day': '영업일이 아닌 날짜입니다. 다른 지급일을 선택해 주세요.',
  'request-cutoff': '당일 지급 요청은 오전 10시 30분(한국 시간)까지만 가능합니다. 다음 영업일로 요청해 주세요.',
  'cancel-cutoff': '지급 취소는 지급일 오전 10시 30분(한국 시간)까지만 가능합니다.',
  'registration-blackout': '밤 11시부터 새벽 1시(한국 시간)까지는 서브몰을 등록할 수 없습니다. 잠시 후 다시 시도해 주세요.',
  'results-not-ready': '지급 결과는 지급일 오후 4시(한국 시간)부터 조회할 수 있습니다.',
};

const ORG_SVC: ReadonlyArray<[OrgSvcCd, string]> = [['01', '신용카드'], ['02', '계좌이체'], ['03', '가상계좌'], ['04', '현금영수증 단독'], ['26', 'CMS 간편결제']];
const RECEIPT_STATUS: Readonly<Record<string, string>> = {
  success: '성공', requested: '요청', 'request-cancelled': '요청 취소', 'request-completed': '요청 완료',
  issued: '발급 완료', 'request-failed': '요청 실패', 'issue-failed': '발급 실패', unknown: '알 수 없음',
};
const PURPOSE: Readonly<Record<string, string>> = { 'income-deduction': '소득공제', 'expense-proof': '지출증빙', unknown: '-' };
const STATE: Readonly<Record<string, string>> = { approval: '승인', cancel: '취소', unknown: '-' };

/** Today in KST as YYYYMMDD. */
const kstToday = (now: Date): string => new Date(now.getTime() + 9 * 3_600_000).toISOString().slice(0, 10).replace(/-/g, '');
const fmtDate = (d: string): string => (/^\d{8}$/.test(d) ? `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6)}` : d);
const validDate = (d: unknown): d is string => typeof d === 'string' && /^\d{8}$/.test(d);

/** A friendly Korean message for what the payout / recon client threw, or undefined to rethrow. */
export function friendlyError(err: unknown): string | undefined {
  if (err instanceof NicepayScheduleError) return SCHEDULE_MESSAGE[err.rule] ?? '지금은 처리할 수 없는 일정입니다.';
  if (err instanceof NicepayRequestError && err.code === 'NICEPAY_FIELD_INVALID') return `입력값을 확인해 주세요${err.field ? ` (${err.field})` : ''}.`;
  if (err instanceof NicepayDataApiError) return `NICEPAY가 요청을 거절했습니다: ${err.resMsg || err.reason} (코드 ${err.resCode})`;
  return undefined;
}

const notice = (message: string | undefined, id = 'admin-error'): SafeHtml | false =>
  message !== undefined && html`<p id="${id}" class="card status-error">${message}</p>`;

/** CSV field: quoted when needed; a leading =+-@ is prefixed so Excel does not run it as a formula. */
function csvField(v: string | number): string {
  let s = String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function adminRoutes(ctx: ShopContext): Router {
  const { db, nicepay } = ctx;
  const usrId = process.env.NICEPAY_USR_ID || `${ctx.mid}admin`;
  db.sqlite.exec(SCHEMA);
  const q = {
    list: db.sqlite.prepare<[], SubMerchantRow>('SELECT * FROM admin_sub_merchants ORDER BY created_at, rowid'),
    upsert: db.sqlite.prepare(`INSERT INTO admin_sub_merchants (sub_id, sub_nm, sub_co_no, bank_cd, accnt_no, accnt_nm, memo, created_at)
      VALUES (@subId, @subNm, @subCoNo, @bankCd, @accntNo, @accntNm, @memo, @createdAt)
      ON CONFLICT(sub_id) DO UPDATE SET sub_nm = excluded.sub_nm, bank_cd = excluded.bank_cd, accnt_no = excluded.accnt_no, accnt_nm = excluded.accnt_nm, memo = excluded.memo`),
  };
  const today = (): string => kstToday(new Date());
  const form = express.urlencoded({ extended: false, limit: '4kb', parameterLimit: 20 });
  const str = (body: unknown, k: string): string => {
    const v = (body as Record<string, unknown> | undefined)?.[k];
    return typeof v === 'string' ? v.trim() : '';
  };
  const router = Router();
  const nav = html`<nav class="card" id="admin-nav"><a href="/admin">잔액</a> <a href="/admin/sub-merchants">서브몰</a> <a href="/admin/payouts">지급</a> <a href="/admin/recon">현금영수증 대사</a></nav>`;
  const page = (res: Response, status: number, title: string, body: SafeHtml): void =>
    sendPage(res, status, title, html`<h1>${title}</h1>${nav}${body}`);

  router.get('/', async (_req, res, next) => {
    try {
      const bal = await nicepay.payout.balance();
      const kind = { settlement: '정산금', deposit: '현금 입금', payout: '서브몰 지급', unknown: '기타' }[bal.last?.kind ?? 'unknown'];
      page(res, 200, '지급 잔액', html`<div class="card"><dl>
<dt>상점 아이디</dt><dd id="balance-mid">${bal.mid}</dd>
<dt>지급 가능 잔액</dt><dd id="balance-amount" class="price" data-amount="${bal.remainAmt}">${won(bal.remainAmt)}</dd>
${bal.last && html`<dt>최근 거래</dt><dd id="balance-last">${fmtDate(bal.last.date)} ${kind} ${won(bal.last.amount)}</dd>`}</dl></div>`);
    } catch (err) {
      const msg = friendlyError(err);
      if (msg === undefined) return next(err);
      page(res, 502, '지급 잔액', html`${notice(msg)}`);
    }
  });

  function subMerchantsPage(res: Response, status: number, message?: string, ok?: string): void {
    const rows = q.list.all().map((s) => html`<tr data-sub-id="${s.sub_id}"><td>${s.sub_id}</td><td>${s.sub_nm}</td><td>${s.sub_co_no}</td>
<td>${s.bank_cd}</td><td>${s.accnt_no}</td><td>${s.accnt_nm}</td><td>${s.memo}</td></tr>`);
    page(res, status, '서브몰 관리', html`${notice(message)}${ok !== undefined && html`<p id="admin-ok" class="card status-approved">${ok}</p>`}
${rows.length === 0 ? html`<p id="no-sub-merchants" class="muted">이 화면에서 등록한 서브몰이 없습니다.</p>`
  : html`<table id="sub-merchants"><thead><tr><th>서브몰 ID</th><th>상호</th><th>사업자번호</th><th>은행</th><th>계좌번호</th><th>예금주</th><th>메모</th></tr></thead><tbody>${rows}</tbody></table>`}
<form id="sub-merchant-form" class="card" method="post" action="/admin/sub-merchants"><h2>서브몰 등록</h2>
<label>서브몰 ID <input type="text" name="subId" id="sub-id" required maxlength="50"></label>
<label>상호 <input type="text" name="subNm" id="sub-nm" required></label>
<label>사업자등록번호 <input type="text" name="subCoNo" id="sub-co-no" required inputmode="numeric"></label>
<label>은행 코드 <input type="text" name="bankCd" id="bank-cd" required maxlength="3" placeholder="004"></label>
<label>계좌번호 <input type="text" name="accntNo" id="accnt-no" required></label>
<label>예금주 <input type="text" name="accntNm" id="accnt-nm" required></label>
<label>메모 <input type="text" name="memo" id="sub-memo"></label>
<button type="submit" id="sub-merchant-submit">등록</button></form>`);
  }

  router.get('/sub-merchants', (req, res) => {
    const registered = typeof req.query.registered === 'string' ? req.query.registered : undefined;
    subMerchantsPage(res, 200, undefined, registered ? `서브몰 ${registered}을(를) 등록했습니다.` : undefined);
  });

  router.post('/sub-merchants', form, async (req, res, next) => {
    const input = {
      subId: str(req.body, 'subId'), subNm: str(req.body, 'subNm'), subCoNo: str(req.body, 'subCoNo'),
      bankCd: str(req.body, 'bankCd'), accntNo: str(req.body, 'accntNo'), accntNm: str(req.body, 'accntNm'), memo: str(req.body, 'memo'),
    };
    try {
      await nicepay.payout.registerSubMerchant(input);
      q.upsert.run({ ...input, createdAt: new Date().toISOString() });
      res.redirect(303, `/admin/sub-merchants?registered=${encodeURIComponent(input.subId)}`);
    } catch (err) {
      const msg = friendlyError(err);
      if (msg === undefined) return next(err);
      subMerchantsPage(res, err instanceof NicepayScheduleError ? 422 : 400, msg);
    }
  });

  async function payoutsPage(res: Response, status: number, date: string, extra?: SafeHtml | false): Promise<void> {
    const subs = q.list.all();
    let results: SafeHtml;
    try {
      const r = await nicepay.payout.results({ settlmntDt: date });
      const rows = r.items.map((i) => html`<tr data-seq="${i.seq}" data-status="${i.status}"><td>${i.seq}</td><td>${i.subId}</td><td>${i.subCoNm}</td>
<td class="amount">${won(i.amount)}</td><td class="status">${i.status === 'unknown' ? i.statusNm : PAYOUT_STATUS_LABEL[i.status]}</td><td>${i.accntNo}</td><td>${i.errReason || '-'}</td></tr>`);
      results = html`<p id="payout-summary">전체 ${r.totCnt}건 · 성공 ${r.succCnt}건 · 실패 ${r.failCnt}건 · 잔액 ${won(r.remainAmt)}</p>
${rows.length === 0 ? html`<p id="no-payouts" class="muted">지급 내역이 없습니다.</p>`
  : html`<table id="payouts"><thead><tr><th>순번</th><th>서브몰</th><th>상호</th><th>금액</th><th>상태</th><th>계좌</th><th>실패 사유</th></tr></thead><tbody>${rows}</tbody></table>`}`;
    } catch (err) {
      const msg = friendlyError(err);
      if (msg === undefined) throw err;
      results = html`${notice(msg, 'results-error')}`;
    }
    page(res, status, '서브몰 지급', html`${extra}
<form id="payout-form" class="card" method="post" action="/admin/payouts"><h2>지급 요청</h2>
<label>서브몰 <select name="subId" id="payout-sub-id">${subs.map((s) => html`<option value="${s.sub_id}">${s.sub_id} (${s.sub_nm})</option>`)}</select></label>
<label>금액 (원) <input type="text" name="amount" id="payout-amount" inputmode="numeric" required></label>
<label>지급일 (YYYYMMDD) <input type="text" name="settlmntDt" id="payout-date" value="${date}" maxlength="8"></label>
<button type="submit" id="payout-submit">지급 요청</button></form>
<h2>${fmtDate(date)} 지급 결과</h2>
<form method="get" action="/admin/payouts"><input type="text" name="date" value="${date}" maxlength="8"> <button type="submit">조회</button></form>
${results}`);
  }

  router.get('/payouts', async (req, res, next) => {
    try {
      const date = validDate(req.query.date) ? req.query.date : today();
      await payoutsPage(res, 200, date);
    } catch (err) {
      next(err);
    }
  });

  router.post('/payouts', form, async (req, res, next) => {
    const date = str(req.body, 'settlmntDt') || today();
    try {
      const amount = Number(str(req.body, 'amount'));
      let extra: SafeHtml;
      let status = 200;
      try {
        const r = await nicepay.payout.request({ subId: str(req.body, 'subId'), amount, settlmntDt: date });
        extra = html`<p id="admin-ok" class="card status-approved">${r.subId}에 ${won(r.amount)} 지급을 ${fmtDate(r.settlmntDt)}로 요청했습니다 (순번 <span id="payout-seq">${r.seq}</span>).</p>`;
      } catch (err) {
        const msg = friendlyError(err);
        if (msg === undefined) throw err;
        extra = html`${notice(msg)}`;
        status = err instanceof NicepayScheduleError ? 422 : 400;
      }
      await payoutsPage(res, status, validDate(date) ? date : today(), extra);
    } catch (err) {
      next(err);
    }
  });

  router.get('/recon', async (req, res, next) => {
    const date = validDate(req.query.date) ? req.query.date : today();
    const orgSvcCd = (ORG_SVC.find(([c]) => c === req.query.orgSvcCd)?.[0] ?? '02');
    const csv = req.query.format === 'csv';
    let items: CashReceiptItem[];
    try {
      items = (await nicepay.recon.cashReceipts({ usrId, dt: date, orgSvcCd, idCl: '2', searchID: ctx.mid })).items;
    } catch (err) {
      const msg = friendlyError(err);
      if (msg === undefined) return next(err);
      if (csv) {
        res.status(502).type('text/plain; charset=utf-8').send(msg);
        return;
      }
      page(res, 502, '현금영수증 대사', html`${notice(msg)}`);
      return;
    }
    const cols: Array<[string, (i: CashReceiptItem) => string | number]> = [
      ['승인일자', (i) => i.appDt], ['승인시각', (i) => i.appTm], ['거래번호', (i) => i.tid], ['원거래번호', (i) => i.orgTid],
      ['주문번호', (i) => i.moid], ['상품명', (i) => i.goodsNm], ['금액', (i) => i.goodsAmt], ['구분', (i) => STATE[i.state] ?? i.stateCd],
      ['용도', (i) => PURPOSE[i.purpose] ?? i.reqFlg], ['발급번호', (i) => i.identity], ['승인번호', (i) => i.appNo],
      ['상태', (i) => RECEIPT_STATUS[i.status] ?? i.statusCd], ['구매자', (i) => i.ordNm],
    ];
    if (csv) {
      const lines = [cols.map(([h]) => h), ...items.map((i) => cols.map(([, f]) => f(i)))].map((r) => r.map(csvField).join(','));
      res.status(200)
        .set('content-type', 'text/csv; charset=utf-8')
        .set('content-disposition', `attachment; filename="cash-receipts-${date}-${orgSvcCd}.csv"`)
        .set('cache-control', 'no-store')
        .send(`\uFEFF${lines.join('\r\n')}\r\n`);
      return;
    }
    const rows = items.map((i) => html`<tr data-tid="${i.tid}">${cols.map(([h, f]) => html`<td${h === '금액' ? html` class="amount"` : ''}>${h === '금액' ? won(Number(f(i))) : f(i)}</td>`)}</tr>`);
    page(res, 200, '현금영수증 대사', html`<form id="recon-form" method="get" action="/admin/recon" class="card">
<label>조회일 (YYYYMMDD) <input type="text" name="date" id="recon-date" value="${date}" maxlength="8"></label>
<label>원거래 <select name="orgSvcCd" id="recon-org">${ORG_SVC.map(([c, l]) => html`<option value="${c}"${c === orgSvcCd ? html` selected` : ''}>${l}</option>`)}</select></label>
<button type="submit">조회</button> <a id="recon-csv" href="/admin/recon?date=${date}&amp;orgSvcCd=${orgSvcCd}&amp;format=csv">CSV 내려받기</a></form>
<h2>${fmtDate(date)} 현금영수증 <span id="recon-count">${items.length}</span>건</h2>
${items.length === 0 ? html`<p id="no-receipts" class="muted">해당 날짜의 현금영수증이 없습니다.</p>`
  : html`<table id="cash-receipts"><thead><tr>${cols.map(([h]) => html`<th>${h}</th>`)}</tr></thead><tbody>${rows}</tbody></table>`}`);
  });

  return router;
}
