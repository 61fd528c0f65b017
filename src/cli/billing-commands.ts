import type { BillingChargeInput, CashReceiptInput } from '../index.js';
import { kstDate8 } from '../wire/kst.js';
import { type Command, oneOf, required, won } from './command.js';
import { EXIT } from './exit-codes.js';
import { WEB_ENV_HELP, withWebClient } from './lifecycle-commands.js';
import { type CliIo, toJson } from './output.js';
import { readSecrets, secretHelp, type SecretInput } from './secret-input.js';

/** The billing key: from the environment or standard input, never argv (shell history, `ps`). */
const BID_INPUT: SecretInput = {
  stdinFlag: 'bid-stdin',
  values: [{ env: 'NICEPAY_BID', what: 'the billing key (BID)' }],
  refused: ['bid'],
};

/** The receipt's identity (a phone, card or business number): personal, so never on argv either. */
const IDENTITY_INPUT: SecretInput = {
  stdinFlag: 'identity-stdin',
  values: [{ env: 'NICEPAY_RECEIPT_IDENTITY', what: "the receipt's mobile, card or business number" }],
  refused: ['identity'],
};

const BID_OPTIONS = { 'bid-stdin': { type: 'boolean' }, bid: { type: 'string' } } as const;

const bidFrom = async (values: Parameters<Command['run']>[0], io: CliIo): Promise<string> =>
  (await readSecrets(values, io, BID_INPUT))[0]!;

/** `billing charge`: one charge of a billing key, once per Moid. */
export const billingCharge: Command = {
  name: 'billing charge',
  summary: 'charge a registered card (billing key from NICEPAY_BID or stdin)',
  help: `Usage: express-nicepay billing charge --moid MOID --amount WON --goods-name TEXT [--quota N] [--bid-stdin]

Charges the billing key and prints the result as JSON (no billing key in it).
Exit 0 when approved; 1 when declined (the JSON says why), when the gateway was unreachable,
or when its answer was lost and the charge was reversed (net cancel succeeded: nothing was
charged; charge again with a new Moid); 4 when the answer was lost and the reversal failed
or could not be tried (the card may be charged: check before charging again). One Moid is
charged at most once per process: use a new Moid per charge.

Options:
  --moid MOID          this charge's order number (required)
  --amount WON         whole won (required)
  --goods-name TEXT    at most 40 bytes in EUC-KR (required)
  --quota N            installment months: 0 (lump sum, default) or 2-99
  --bid-stdin          read the billing key from standard input instead of NICEPAY_BID

${WEB_ENV_HELP}
${secretHelp(BID_INPUT)}`,
  options: {
    moid: { type: 'string' },
    amount: { type: 'string' },
    'goods-name': { type: 'string' },
    quota: { type: 'string' },
    ...BID_OPTIONS,
  },
  async run(values, io) {
    const input: BillingChargeInput = {
      bid: '',
      moid: required(values, 'moid', 'the order number'),
      amount: won(values, 'amount', true)!,
      goodsName: required(values, 'goods-name', 'the goods name'),
    };
    if (typeof values['quota'] === 'string') input.quota = values['quota'];
    input.bid = await bidFrom(values, io);
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
  summary: 'remove a billing key for good (from NICEPAY_BID or stdin)',
  help: `Usage: express-nicepay billing remove --moid MOID [--bid-stdin]

Removes the billing key and prints the result as JSON; authDate is the gateway's KST date
(YYYYMMDD: the answer carries no time). Exit 0 when removed; 1 when the gateway refused
(already removed, unknown) or was unreachable; 4 when the outcome is unknown (remove again
with a new Moid: a removed key is refused).

Options:
  --moid MOID   a new order number for the removal (required)
  --bid-stdin   read the billing key from standard input instead of NICEPAY_BID

${WEB_ENV_HELP}
${secretHelp(BID_INPUT)}`,
  options: { moid: { type: 'string' }, ...BID_OPTIONS },
  async run(values, io) {
    const moid = required(values, 'moid', 'a new order number');
    const bid = await bidFrom(values, io);
    const result = await withWebClient(io, (np) => np.billing.remove({ bid, moid }));
    // The answer's AuthDate is a date (YYYYMMDD, KST): as an instant it would print as 15:00
    // UTC of the day before, which reads as a time nobody gave.
    io.out(
      toJson(
        result.status === 'removed' ? { ...result, authDate: result.authDate && kstDate8(result.authDate) } : result,
      ),
    );
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
         --type income-deduction|expense-proof [--identity-stdin]

Issues the receipt and prints the result as JSON. supply + vat + service + tax-free must equal
amount (checked before sending). The receipt's identity (a phone, card or business number)
comes from NICEPAY_RECEIPT_IDENTITY or standard input, never from the command line.
Exit 0 when issued; 1 when refused or unreachable; 2 for bad input; 3 without the identity;
4 when the outcome is unknown (reconcile with "express-nicepay recon cash-receipts"
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
  --identity-stdin     read the identity from standard input instead of NICEPAY_RECEIPT_IDENTITY

${WEB_ENV_HELP}
${secretHelp(IDENTITY_INPUT)}`,
  options: {
    moid: { type: 'string' },
    amount: { type: 'string' },
    supply: { type: 'string' },
    vat: { type: 'string' },
    service: { type: 'string' },
    'tax-free': { type: 'string' },
    'goods-name': { type: 'string' },
    type: { type: 'string' },
    'identity-stdin': { type: 'boolean' },
    // Parsed only to be refused with a pointed message (secret-input.ts).
    identity: { type: 'string' },
  },
  async run(values, io) {
    const input: CashReceiptInput = {
      moid: required(values, 'moid', 'the order number'),
      amount: won(values, 'amount', true)!,
      supply: won(values, 'supply', true)!,
      vat: won(values, 'vat', true)!,
      goodsName: required(values, 'goods-name', 'the goods name'),
      type: oneOf(required(values, 'type', 'income-deduction or expense-proof'), 'type', [
        'income-deduction',
        'expense-proof',
      ] as const),
      identity: '',
    };
    const service = won(values, 'service', false);
    const taxFree = won(values, 'tax-free', false);
    if (service !== undefined) input.service = service;
    if (taxFree !== undefined) input.taxFree = taxFree;
    input.identity = (await readSecrets(values, io, IDENTITY_INPUT))[0]!;
    const result = await withWebClient(io, (np) => np.cashReceipt.issue(input));
    io.out(toJson(result));
    if (result.status === 'refused') {
      io.err(`refused: ${result.code} ${result.message}\n`);
      return EXIT.GATEWAY;
    }
    return EXIT.OK;
  },
};
