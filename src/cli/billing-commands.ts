import type { BillingChargeInput, CashReceiptInput } from '../index.js';
import { type Command, oneOf, required, won } from './command.js';
import { CliConfigError, EXIT } from './exit-codes.js';
import { WEB_ENV_HELP, withWebClient } from './lifecycle-commands.js';
import { type CliIo, toJson } from './output.js';

/** The billing key comes from the environment: on a command line it would sit in the shell history and `ps`. */
const BID_ENV_HELP = `${WEB_ENV_HELP}
  NICEPAY_BID           the billing key (BID) to charge or remove (never printed)`;

function bidFromEnv(io: CliIo): string {
  const bid = io.env['NICEPAY_BID'];
  if (!bid) throw new CliConfigError('missing environment variable NICEPAY_BID (the billing key; see --help)');
  return bid;
}

/** `billing charge`: one charge of a billing key, once per Moid. */
export const billingCharge: Command = {
  name: 'billing charge',
  summary: 'charge a registered card (billing key from NICEPAY_BID)',
  help: `Usage: express-nicepay billing charge --moid MOID --amount WON --goods-name TEXT [--quota N]

Charges the billing key in NICEPAY_BID and prints the result as JSON (no billing key in it).
Exit 0 when approved; 1 when declined (the JSON says why) or the gateway was unreachable;
4 when the outcome is unknown (the charge was net-cancelled: the message says whether that
succeeded). One Moid is charged at most once per process: use a new Moid per charge.

Options:
  --moid MOID          this charge's order number (required)
  --amount WON         whole won (required)
  --goods-name TEXT    at most 40 bytes in EUC-KR (required)
  --quota N            installment months: 0 (lump sum, default) or 2-99

${BID_ENV_HELP}`,
  options: { moid: { type: 'string' }, amount: { type: 'string' }, 'goods-name': { type: 'string' }, quota: { type: 'string' } },
  async run(values, io) {
    const input: BillingChargeInput = {
      bid: '',
      moid: required(values, 'moid', 'the order number'),
      amount: won(values, 'amount', true)!,
      goodsName: required(values, 'goods-name', 'the goods name'),
    };
    if (typeof values['quota'] === 'string') input.quota = values['quota'];
    input.bid = bidFromEnv(io);
    io.err(`charging ${input.amount} won for ${input.moid}\n`);
    const result = await withWebClient(io, (np) => np.billing.charge(input));
    io.out(toJson(result));
    if (result.status === 'declined') {
      io.err(`declined: ${result.code} ${result.message}\n`);
      return EXIT.GATEWAY;
    }
    io.err(`approved: TID ${result.tid}${result.duplicate ? ' (duplicate: nothing sent)' : ''}\n`);
    return EXIT.OK;
  },
};

/** `billing remove`: removes a billing key for good. */
export const billingRemove: Command = {
  name: 'billing remove',
  summary: 'remove a billing key for good (from NICEPAY_BID)',
  help: `Usage: express-nicepay billing remove --moid MOID

Removes the billing key in NICEPAY_BID and prints the result as JSON. Exit 0 when removed;
1 when the gateway refused (already removed, unknown) or was unreachable; 4 when the outcome
is unknown (remove again with a new Moid: a removed key is refused).

Options:
  --moid MOID   a new order number for the removal (required)

${BID_ENV_HELP}`,
  options: { moid: { type: 'string' } },
  async run(values, io) {
    const moid = required(values, 'moid', 'a new order number');
    const bid = bidFromEnv(io);
    const result = await withWebClient(io, (np) => np.billing.remove({ bid, moid }));
    io.out(toJson(result));
    if (result.status === 'refused') {
      io.err(`refused: ${result.code} ${result.message}\n`);
      return EXIT.GATEWAY;
    }
    return EXIT.OK;
  },
};

/** `cash-receipt issue`: a standalone cash receipt. */
export const cashReceiptIssue: Command = {
  name: 'cash-receipt issue',
  summary: 'issue a cash receipt for cash taken outside the payment window',
  help: `Usage: express-nicepay cash-receipt issue --moid MOID --amount WON --supply WON --vat WON
         [--service WON] [--tax-free WON] --goods-name TEXT
         --type income-deduction|expense-proof --identity NUMBER

Issues the receipt and prints the result as JSON. supply + vat + service + tax-free must equal
amount (checked before sending). Exit 0 when issued; 1 when refused or unreachable; 2 for bad
input; 4 when the outcome is unknown (reconcile with "express-nicepay recon cash-receipts"
--org-svc-cd 04 before issuing again).

Options:
  --moid MOID          the order the cash paid (required)
  --amount WON         the total (required)
  --supply WON         supply amount (required)
  --vat WON            VAT (required)
  --service WON        service charge (default 0)
  --tax-free WON       tax-free amount (default 0)
  --goods-name TEXT    at most 40 bytes in EUC-KR (required)
  --type TYPE          income-deduction (소득공제) or expense-proof (지출증빙) (required)
  --identity NUMBER    mobile, cash-receipt card or business number (required)

${WEB_ENV_HELP}`,
  options: {
    moid: { type: 'string' }, amount: { type: 'string' }, supply: { type: 'string' }, vat: { type: 'string' }, service: { type: 'string' },
    'tax-free': { type: 'string' }, 'goods-name': { type: 'string' }, type: { type: 'string' }, identity: { type: 'string' },
  },
  async run(values, io) {
    const input: CashReceiptInput = {
      moid: required(values, 'moid', 'the order number'),
      amount: won(values, 'amount', true)!,
      supply: won(values, 'supply', true)!,
      vat: won(values, 'vat', true)!,
      goodsName: required(values, 'goods-name', 'the goods name'),
      type: oneOf(required(values, 'type', 'income-deduction or expense-proof'), 'type', ['income-deduction', 'expense-proof'] as const),
      identity: required(values, 'identity', 'the receipt number (mobile, cash-receipt card or business number)'),
    };
    const service = won(values, 'service', false);
    const taxFree = won(values, 'tax-free', false);
    if (service !== undefined) input.service = service;
    if (taxFree !== undefined) input.taxFree = taxFree;
    const result = await withWebClient(io, (np) => np.cashReceipt.issue(input));
    io.out(toJson(result));
    if (result.status === 'refused') {
      io.err(`refused: ${result.code} ${result.message}\n`);
      return EXIT.GATEWAY;
    }
    return EXIT.OK;
  },
};
