import type { IdCl, OrgSvcCd } from '../index.js';
import { withClient } from './client.js';
import { type Command, date8, oneOf, required } from './command.js';
import { ENV_HELP } from './env.js';
import { EXIT } from './exit-codes.js';
import { records, toJson, writeCsv } from './output.js';

const ORG_SVC_CDS: readonly OrgSvcCd[] = ['01', '02', '03', '04', '26'];
const ID_CLS: readonly IdCl[] = ['2', '3', '4'];

/** CSV columns of `recon cash-receipts --csv` (CashReceiptItem without raw). */
export const RECEIPT_COLUMNS = [
  'appDt',
  'appTm',
  'ccDt',
  'ccTm',
  'mid',
  'serviceId',
  'tid',
  'orgTid',
  'orgSvcCd',
  'goodsNm',
  'goodsAmt',
  'state',
  'stateCd',
  'appNo',
  'ccNo',
  'ordNm',
  'identity',
  'status',
  'statusCd',
  'purpose',
  'reqFlg',
  'coNm',
  'coNo',
  'moid',
] as const;

/** `recon cash-receipts`: the cash receipts of one date (sid 0301002) as JSON or CSV. */
export const reconCashReceipts: Command = {
  name: 'recon cash-receipts',
  summary: 'export the cash receipts of a date',
  help: `Usage: express-nicepay recon cash-receipts --date YYYYMMDD --usr-id U --org-svc-cd CD
                                   [--id-cl 2|3|4] [--search-id ID] [--csv]

Exports the cash receipts approved or cancelled on one date.

Options:
  --date YYYYMMDD     query date, KST (required)
  --usr-id U          merchant administrator login id (required; or NICEPAY_USR_ID)
  --org-svc-cd CD     original method: 01 card, 02 bank transfer, 03 virtual account,
                      04 cash receipt, 26 CMS account simple payment (required)
  --id-cl 2|3|4       what --search-id is: 2 MID, 3 GID, 4 AID (default 2)
  --search-id ID      the MID, GID or AID to query (default NICEPAY_MID)
  --csv               the items as CSV instead of the whole result as JSON

${ENV_HELP}
  NICEPAY_USR_ID        default of --usr-id`,
  options: {
    date: { type: 'string' },
    'usr-id': { type: 'string' },
    'org-svc-cd': { type: 'string' },
    'id-cl': { type: 'string' },
    'search-id': { type: 'string' },
    csv: { type: 'boolean' },
  },
  async run(values, io) {
    const dt = date8(values, 'date');
    const usrId =
      typeof values['usr-id'] === 'string'
        ? values['usr-id']
        : (io.env['NICEPAY_USR_ID'] ?? required(values, 'usr-id', 'the administrator login id'));
    const orgSvcCd = oneOf(required(values, 'org-svc-cd', ORG_SVC_CDS.join(', ')), 'org-svc-cd', ORG_SVC_CDS);
    const idCl = oneOf(typeof values['id-cl'] === 'string' ? values['id-cl'] : '2', 'id-cl', ID_CLS);
    const searchId = typeof values['search-id'] === 'string' ? values['search-id'] : io.env['NICEPAY_MID'];
    const list = await withClient(io, (np) => {
      io.err(`querying cash receipts for ${dt} (orgSvcCd ${orgSvcCd})\n`);
      return np.recon.cashReceipts({ usrId, dt, orgSvcCd, idCl, searchID: searchId ?? '' });
    });
    io.err(`fetched ${records(list.items.length)}\n`);
    if (values['csv']) writeCsv(io, RECEIPT_COLUMNS, list.items);
    else io.out(toJson(list));
    return EXIT.OK;
  },
};
