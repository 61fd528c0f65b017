/**
 * Cash-receipt reconciliation (mounted at /admin/recon, behind the login guard):
 *
 *   GET /admin/recon?date=YYYYMMDD[&orgSvcCd=all|01|02|03|04|26][&format=csv]
 *
 * nicepay.recon.cashReceipts for one date. The gateway lists receipts per original method: a
 * receipt asked for in the payment window under its transfer's or virtual account's code (02,
 * 03), one issued on its own (현금영수증 발급) under 04 only. So the page asks for every code
 * by default ("전체") and shows each receipt's 원거래, and a receipt the shop just issued is
 * there whichever way it was made; one code can still be picked. The CSV is UTF-8 with a byte-order mark, which
 * Korean Excel needs to read UTF-8 (the CLI's CSV carries one too). The query needs the
 * merchant admin page's login id: NICEPAY_USR_ID, or `${mid}admin` (the sandbox's default).
 */
import type { Router } from 'express';
import { shopRouter } from './router.js';
import type { CashReceiptItem, OrgSvcCd } from '../../src/index.js';
import type { ShopContext } from '../shop-context.js';
import { dataTable, idParts, type Column, type ColumnKind } from '../data-table.js';
import { operatorError } from '../korean.js';
import { html, won } from '../views.js';
import { adminPage, errorNotice, fmtDate, kstToday, queryDate } from './admin-page.js';

const ORG_SVC: ReadonlyArray<[OrgSvcCd, string]> = [
  ['01', '신용카드'],
  ['02', '계좌이체'],
  ['03', '가상계좌'],
  ['04', '현금영수증 단독'],
  ['26', 'CMS 간편결제'],
];
/** The default choice: every code of ORG_SVC, one query each. */
const ALL = 'all';
const orgSvcLabel = (code: string): string => ORG_SVC.find(([c]) => c === code)?.[1] ?? code;
const RECEIPT_STATUS: Readonly<Record<string, string>> = {
  success: '성공',
  requested: '요청',
  'request-cancelled': '요청 취소',
  'request-completed': '요청 완료',
  issued: '발급 완료',
  'request-failed': '요청 실패',
  'issue-failed': '발급 실패',
  unknown: '알 수 없음',
};
const PURPOSE: Readonly<Record<string, string>> = {
  'income-deduction': '소득공제',
  'expense-proof': '지출증빙',
  unknown: '-',
};
const STATE: Readonly<Record<string, string>> = { approval: '승인', cancel: '취소', unknown: '-' };

/** CSV field: quoted when needed; a leading =+-@ is prefixed so Excel does not run it as a formula. */
function csvField(v: string | number): string {
  let s = String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The reconciliation page and its CSV download. */
export function adminReconRoutes(ctx: ShopContext): Router {
  const { nicepay } = ctx;
  const usrId = process.env.NICEPAY_USR_ID || `${ctx.mid}admin`;
  const router = shopRouter();
  router.get('/', async (req, res, next) => {
    const { date, error: dateError } = queryDate(req.query.date, kstToday(ctx.clock()));
    const orgSvcCd: OrgSvcCd | typeof ALL = ORG_SVC.find(([c]) => c === req.query.orgSvcCd)?.[0] ?? ALL;
    const codes = orgSvcCd === ALL ? ORG_SVC.map(([c]) => c) : [orgSvcCd];
    const csv = req.query.format === 'csv';
    if (csv && dateError) {
      res.status(400).type('text/plain; charset=utf-8').send(dateError);
      return;
    }
    let items: CashReceiptItem[];
    try {
      const lists = await Promise.all(
        codes.map((code) =>
          nicepay.recon.cashReceipts({ usrId, dt: date, orgSvcCd: code, idCl: '2', searchID: ctx.mid }),
        ),
      );
      items = lists.flatMap((list) => list.items);
    } catch (err) {
      const e = operatorError(err);
      if (!e) return next(err);
      if (csv) {
        res.status(e.status).type('text/plain; charset=utf-8').send(e.message);
        return;
      }
      adminPage(req, res, e.status, '현금영수증 대사', html`${errorNotice(e.message)}`);
      return;
    }
    // Each column once, for the CSV (raw values) and the page (labelled cells, amounts as won).
    const cols: Array<[string, ColumnKind, (i: CashReceiptItem) => string | number]> = [
      ['승인일자', 'date', (i) => i.appDt],
      ['승인시각', 'date', (i) => i.appTm],
      ['거래번호', 'tid', (i) => i.tid],
      ['원거래번호', 'tid', (i) => i.orgTid],
      ['원거래', 'status', (i) => orgSvcLabel(i.orgSvcCd)],
      ['주문번호', 'moid', (i) => i.moid],
      ['상품명', 'goods', (i) => i.goodsNm],
      ['금액', 'amount', (i) => i.goodsAmt],
      ['구분', 'status', (i) => STATE[i.state] ?? i.stateCd],
      ['용도', 'status', (i) => PURPOSE[i.purpose] ?? i.reqFlg],
      ['발급번호', 'id', (i) => i.identity],
      ['승인번호', 'id', (i) => i.appNo],
      ['상태', 'status', (i) => RECEIPT_STATUS[i.status] ?? i.statusCd],
      ['구매자', 'text', (i) => i.ordNm],
    ];
    if (csv) {
      const lines = [cols.map(([h]) => h), ...items.map((i) => cols.map(([, , f]) => f(i)))].map((r) =>
        r.map(csvField).join(','),
      );
      res
        .status(200)
        .set('content-type', 'text/csv; charset=utf-8')
        .set('content-disposition', `attachment; filename="cash-receipts-${date}-${orgSvcCd}.csv"`)
        .set('cache-control', 'no-store')
        .send(`\uFEFF${lines.join('\r\n')}\r\n`);
      return;
    }
    // On the page the two long TIDs come last, so a window narrower than the table still shows
    // order, amount, status and buyer first, and the original method heads the original TID's
    // cell rather than taking a column of its own: at a laptop's width the whole table fits.
    // The CSV keeps the gateway's order, each value in a column of its own.
    const pageCols = cols.filter(([label]) => label !== '원거래' && label !== '원거래번호');
    const columns: Array<Column<CashReceiptItem>> = [
      ...pageCols.filter(([, kind]) => kind !== 'tid'),
      ...pageCols.filter(([, kind]) => kind === 'tid'),
    ].map(([label, kind, f]) => ({
      label,
      kind,
      cell: (i) => (kind === 'amount' ? won(Number(f(i))) : f(i)),
    }));
    columns.push({
      label: '원거래',
      kind: 'tid',
      cell: (i) =>
        html`<span class="id-part">${orgSvcLabel(i.orgSvcCd)}</span>${i.orgTid ? html`<wbr>${idParts(i.orgTid)}` : ''}`,
    });
    adminPage(
      req,
      res,
      dateError ? 400 : 200,
      '현금영수증 대사',
      html`${errorNotice(dateError, 'date-error')}<form id="recon-form" method="get" action="/admin/recon" class="card">
<label>조회일 (YYYYMMDD) <input type="text" name="date" id="recon-date" value="${date}" maxlength="8"></label>
<label>원거래 <select name="orgSvcCd" id="recon-org"><option value="${ALL}"${orgSvcCd === ALL ? html` selected` : ''}>전체</option>${ORG_SVC.map(([c, l]) => html`<option value="${c}"${c === orgSvcCd ? html` selected` : ''}>${l}</option>`)}</select></label>
<div class="actions"><button type="submit">조회</button><a class="button secondary" id="recon-csv" href="/admin/recon?date=${date}&amp;orgSvcCd=${orgSvcCd}&amp;format=csv">CSV 내려받기</a></div></form>
<h2>${fmtDate(date)} 현금영수증 <span id="recon-count">${items.length}</span>건</h2>
${
  items.length === 0
    ? html`<p id="no-receipts" class="muted">해당 날짜의 현금영수증이 없습니다.</p>`
    : dataTable('cash-receipts', columns, items, (i) => ({ tid: i.tid }))
}`,
    );
  });
  return router;
}
