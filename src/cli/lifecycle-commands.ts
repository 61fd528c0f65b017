import { createNicepay, type CancelInput, type Nicepay } from '../index.js';
import { type Command, type CliValues, required, won } from './command.js';
import { clientFromEnv, readCredentials } from './env.js';
import { EXIT, UsageError } from './exit-codes.js';
import { type CliIo, toJson } from './output.js';
import { readSecrets, refuseOnCommandLine, secretHelp, type SecretInput } from './secret-input.js';

/** The environment of the cancel and status commands: the payment host instead of the data host. */
export const WEB_ENV_HELP = `Environment:
  NICEPAY_MID           merchant id (10 characters)
  NICEPAY_MERCHANT_KEY  merchant key (never printed)
  NICEPAY_BASE_URL      payment web API host, e.g. https://webapi.nicepay.co.kr or a sandbox URL
  DEBUG=express-nicepay log each gateway call to stderr (keys and card data redacted)`;

/**
 * Runs `fn` with a client on NICEPAY_BASE_URL (cancel and status are payment-host calls) and
 * the usual credentials; closes it afterwards.
 */
export async function withWebClient<T>(io: CliIo, fn: (nicepay: Nicepay) => Promise<T>): Promise<T> {
  const creds = readCredentials(io.env, 'NICEPAY_BASE_URL');
  const nicepay = clientFromEnv(
    () => createNicepay({ mid: creds.mid, merchantKey: creds.merchantKey, baseUrl: creds.url }),
    'NICEPAY_BASE_URL',
  );
  try {
    return await fn(nicepay);
  } finally {
    await nicepay.close();
  }
}

const opt = (values: CliValues, name: string): string | undefined =>
  typeof values[name] === 'string' ? (values[name] as string) : undefined;

/** A buyer's refund account (number and holder): personal, so from the environment or stdin, never argv. */
const REFUND_INPUT: SecretInput = {
  stdinFlag: 'refund-account-stdin',
  values: [
    { env: 'NICEPAY_REFUND_ACCOUNT', what: "the refund account's number (digits)" },
    { env: 'NICEPAY_REFUND_HOLDER', what: "the refund account holder's name" },
  ],
  refused: ['refund-account', 'refund-holder'],
};

/** `cancel`: a full or partial cancel, or a refund of a paid virtual account. */
export const cancelCommand: Command = {
  name: 'cancel',
  summary: 'cancel a payment fully or partly, or refund a paid virtual account',
  help: `Usage: express-nicepay cancel --tid TID --moid MOID --amount WON --reason TEXT
         [--partial] [--remaining WON] [--key KEY] [--refund-bank CODE [--refund-account-stdin]]

Cancels (PartialCancelCode 0 or 1) on the payment host and prints the result as JSON.
Exit 0 when cancelled or refund-pending; 1 when the gateway refused (the JSON says why)
or asks for a retry; 4 when the outcome is unknown (check with "express-nicepay status").

Options:
  --tid TID             the approved transaction (required)
  --moid MOID           its order number (required)
  --amount WON          won to cancel; the whole remaining amount for a full cancel (required)
  --reason TEXT         CancelMsg, at most 100 bytes in EUC-KR (required)
  --partial             a partial cancel
  --remaining WON       what is still cancellable: a larger cancel is refused before sending
  --key KEY             idempotency key (the same TID, amount and key is sent once per process)
  --refund-bank CODE    refund a paid virtual account to an account of this 3-digit bank code;
                        its number and holder come from the environment or standard input
  --refund-account-stdin
                        read the refund account's number, then its holder, from standard input

${WEB_ENV_HELP}
${secretHelp(REFUND_INPUT)}`,
  options: {
    tid: { type: 'string' },
    moid: { type: 'string' },
    amount: { type: 'string' },
    reason: { type: 'string' },
    partial: { type: 'boolean' },
    remaining: { type: 'string' },
    key: { type: 'string' },
    'refund-bank': { type: 'string' },
    'refund-account-stdin': { type: 'boolean' },
    // Parsed only to be refused with a pointed message (secret-input.ts).
    'refund-account': { type: 'string' },
    'refund-holder': { type: 'string' },
  },
  async run(values, io) {
    const input: CancelInput = {
      tid: required(values, 'tid', 'the transaction id'),
      moid: required(values, 'moid', 'the order number'),
      amount: won(values, 'amount', true)!,
      reason: required(values, 'reason', 'why (CancelMsg)'),
      partial: values['partial'] === true,
    };
    const remaining = won(values, 'remaining', false);
    if (remaining !== undefined) input.remainingAmount = remaining;
    const key = opt(values, 'key');
    if (key !== undefined) input.idempotencyKey = key;
    refuseOnCommandLine(values, REFUND_INPUT);
    const bankCode = opt(values, 'refund-bank');
    if (bankCode !== undefined || values['refund-account-stdin'] === true || io.env['NICEPAY_REFUND_ACCOUNT']) {
      if (!bankCode)
        throw new UsageError(
          'a refund account needs --refund-bank CODE (its 3-digit bank code) besides its number and holder',
        );
      const [number, holder] = await readSecrets(values, io, REFUND_INPUT);
      input.refundAccount = { number: number!, bankCode, holder: holder! };
    }
    io.err(`cancelling ${input.amount} won of ${input.tid}${input.partial ? ' (partial)' : ''}\n`);
    const result = await withWebClient(io, (np) => np.cancel(input));
    io.out(toJson(result));
    if (result.status === 'refused') {
      io.err(`refused: ${result.code} ${result.reason} (${result.message})\n`);
      return EXIT.GATEWAY;
    }
    io.err(`${result.status}: ${result.cancelledAmount} won, ${result.remainingAmount ?? 'unknown'} won remaining\n`);
    return EXIT.OK;
  },
};

/** `status`: the gateway's transaction status inquiry. */
export const statusCommand: Command = {
  name: 'status',
  summary: 'ask the gateway what became of a transaction (advice, not proof)',
  help: `Usage: express-nicepay status --tid TID

Prints the status inquiry's answer as JSON: status approved, cancelled or not-found, with
authCode and authDate. The answer carries no signature and no amount and does not show partial
cancels: treat it as advice when resolving an unknown outcome.

Options:
  --tid TID   the transaction id (required)

${WEB_ENV_HELP}`,
  options: { tid: { type: 'string' } },
  async run(values, io) {
    const tid = required(values, 'tid', 'the transaction id');
    const s = await withWebClient(io, (np) => np.status(tid));
    io.out(toJson(s));
    return EXIT.OK;
  },
};
