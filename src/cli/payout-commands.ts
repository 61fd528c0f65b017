import { withClient } from './client.js';
import { type Command, date8 } from './command.js';
import { ENV_HELP } from './env.js';
import { EXIT } from './exit-codes.js';
import { records, toJson, writeCsv } from './output.js';

/** CSV columns of `payout results --csv` (PayoutResultItem without raw). */
export const PAYOUT_COLUMNS = [
  'rowNo',
  'seq',
  'settlmntDt',
  'subId',
  'subCoNo',
  'subCoNm',
  'status',
  'statusNm',
  'amount',
  'bankCd',
  'accntNm',
  'accntNo',
  'errReason',
] as const;

/** `payout balance`: the merchant's payout balance (sid 0101001) as JSON. */
export const payoutBalance: Command = {
  name: 'payout balance',
  summary: 'show the payout balance',
  help: `Usage: express-nicepay payout balance

Prints the merchant's payout balance (remainAmt, latest entry) as JSON.

${ENV_HELP}`,
  options: {},
  async run(_values, io) {
    const balance = await withClient(io, (np) => np.payout.balance());
    io.out(toJson(balance));
    return EXIT.OK;
  },
};

/** `payout results`: the payouts of one date (sid 0101002) as JSON or CSV. */
export const payoutResults: Command = {
  name: 'payout results',
  summary: 'list the payouts of a date and what became of them',
  help: `Usage: express-nicepay payout results --date YYYYMMDD [--sub-id ID] [--csv]

Lists the payouts of one payout date (available from 16:00 KST of that day) with their
status (requested, succeeded, failed, retrying, deleted, unknown).

Options:
  --date YYYYMMDD  payout date, KST (required)
  --sub-id ID      one sub-merchant only
  --csv            the items as CSV instead of the whole result as JSON

${ENV_HELP}`,
  options: { date: { type: 'string' }, 'sub-id': { type: 'string' }, csv: { type: 'boolean' } },
  async run(values, io) {
    const settlmntDt = date8(values, 'date');
    const subId = typeof values['sub-id'] === 'string' ? values['sub-id'] : undefined;
    io.err(`querying payout results for ${settlmntDt}${subId ? ` (sub-merchant ${subId})` : ''}\n`);
    const results = await withClient(io, (np) => np.payout.results({ settlmntDt, ...(subId ? { subId } : {}) }));
    io.err(`fetched ${records(results.items.length)}\n`);
    if (values['csv']) writeCsv(io, PAYOUT_COLUMNS, results.items);
    else io.out(toJson(results));
    return EXIT.OK;
  },
};
