import { createNicepay, type Logger, type Nicepay, type SettledItem, type UnsettledItem } from '../index.js';
import { debugEnabled, debugLogger } from '../debug-logger.js';
import { kstTimestamp14 } from '../wire/kst.js';
import { type Command, wholeNumber } from './command.js';
import { httpUrl, OPTION_ENV, readCredentials, renameConfigError } from './env.js';
import { CliConfigError, EXIT, type ExitCode } from './exit-codes.js';
import { type CliIo, records, toJson, writeCsv } from './output.js';
import { chooseStore, openStore, STORE_ENV_HELP, type StoreChoice } from './store-env.js';

/** The environment of `settle` and `unsettled`: the shop's gateway, merchant and store. */
const LEDGER_ENV_HELP = `Environment:
  NICEPAY_MID           merchant id (10 characters)
  NICEPAY_MERCHANT_KEY  merchant key (never printed)
  NICEPAY_BASE_URL      payment web API host (status inquiry, cancels), e.g. https://webapi.nicepay.co.kr
  NICEPAY_DATA_URL      data host, for NICEPAY_USR_ID's reconciliation, e.g. https://data.nicepay.co.kr
  NICEPAY_USR_ID        merchant admin login: settles a cash receipt whose answer was lost by
                        reconciliation (without it such a receipt stays open)
  DEBUG=express-nicepay log each gateway call to stderr (keys and card data redacted)

${STORE_ENV_HELP}`;

/** What both commands take: how long a payment may stay open, and how many are looked at. */
const LEDGER_OPTIONS_HELP = `  --attention-after MINUTES
                     a payment open longer than this needs attention (default 1440, a day;
                     one the shop's settler already flagged needs it whatever this says)
  --batch N          most open payments looked at (default 100)`;


/** Settlement settings from the command line. */
interface LedgerSettings {
  attentionAfterMs: number;
  batch: number;
}

function ledgerSettings(values: Parameters<Command['run']>[0]): LedgerSettings {
  return {
    attentionAfterMs: wholeNumber(values, 'attention-after', 'minutes', 1440, 525_600) * 60_000,
    batch: wholeNumber(values, 'batch', 'records', 100, 10_000),
  };
}

/** Warnings and errors of settlement (a record that could not be settled) on stderr; DEBUG adds every line. */
function stderrLogger(io: CliIo): Logger {
  if (debugEnabled(io.env['DEBUG'])) return debugLogger(io.env['DEBUG'], io.err);
  const line = (level: string) => (obj: Record<string, unknown>, msg?: string) => io.err(`express-nicepay ${level}: ${msg ?? ''} ${JSON.stringify(obj)}\n`);
  return { debug() {}, info() {}, warn: line('warn'), error: line('error') };
}

/**
 * Runs `fn` with a client on the shop's ledger store (store-env.ts) and payment host; every
 * missing variable, the store included, is named in one configuration error. Closes the client,
 * then the store.
 */
export async function withLedgerClient<T>(io: CliIo, settings: LedgerSettings, fn: (nicepay: Nicepay) => Promise<T>): Promise<T> {
  const choice = chooseStore(io.env);
  const creds = readCredentials(io.env, 'NICEPAY_BASE_URL', 'problem' in choice ? [choice.problem] : []);
  const dataUrl = httpUrl(io.env, 'NICEPAY_DATA_URL');
  const usrId = io.env['NICEPAY_USR_ID'];
  if (usrId && !dataUrl) throw new CliConfigError('NICEPAY_USR_ID (reconciliation of cash receipts) needs NICEPAY_DATA_URL, the data host');
  const opened = await openStore(choice as StoreChoice);
  try {
    let nicepay: Nicepay;
    try {
      nicepay = createNicepay({
        mid: creds.mid, merchantKey: creds.merchantKey, baseUrl: creds.url, ...(dataUrl ? { dataUrl } : {}),
        store: opened.store, logger: stderrLogger(io),
        settle: { intervalMs: false, ...settings, ...(usrId ? { reconciliation: { usrId } } : {}) },
      });
    } catch (err) {
      const variable = (field: string): string | undefined =>
        field === 'baseUrl' ? 'NICEPAY_BASE_URL' : field === 'dataUrl' ? 'NICEPAY_DATA_URL' : field.startsWith('settle.reconciliation') ? 'NICEPAY_USR_ID' : OPTION_ENV[field];
      throw renameConfigError(err, variable);
    }
    try {
      return await fn(nicepay);
    } finally {
      await nicepay.close();
    }
  } finally {
    await opened.close();
  }
}

/** An instant as KST wall time, `2026-11-27 09:30:00 KST`. */
function kst(date: Date): string {
  const t = kstTimestamp14(date);
  return `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)} ${t.slice(8, 10)}:${t.slice(10, 12)}:${t.slice(12)} KST`;
}

const settledLine = (s: SettledItem): string => `settled ${s.operation} TID ${s.tid} Moid ${s.moid} ${s.amount} won: ${s.outcome}\n`;

const openLine = (u: UnsettledItem): string =>
  `${u.needsAttention ? 'NEEDS ATTENTION' : 'open'} ${u.operation} TID ${u.tid} Moid ${u.moid} ${u.amount} won: ${u.state}, ${u.reason}; ` +
  `${u.attempts} attempt${u.attempts === 1 ? '' : 's'}, next ${kst(u.nextAttemptAt)}\n`;

/** 0 nothing open, 5 payments open, 6 one of them needs attention. */
function exitFor(open: readonly UnsettledItem[]): ExitCode {
  if (open.some((u) => u.needsAttention)) return EXIT.NEEDS_ATTENTION;
  return open.length > 0 ? EXIT.UNSETTLED : EXIT.OK;
}

/** "2 still open, 1 needs attention" for the summary line. */
function openSummary(open: readonly UnsettledItem[], batch: number): string {
  const attention = open.filter((u) => u.needsAttention).length;
  const more = open.length >= batch ? ` (the first ${batch}: raise --batch for more)` : '';
  return `${records(open.length)} still open${more}${attention > 0 ? `, ${attention} need${attention === 1 ? 's' : ''} attention` : ''}`;
}

const EXIT_HELP = `Exit 0 when nothing is open, 5 when payments are still open (settlement keeps trying them),
6 when one has been open past --attention-after (a person should look).`;

/** `settle`: one settlement pass over the shop's ledger, for cron. */
export const settleCommand: Command = {
  name: 'settle',
  summary: "settle the shop's open payments once (for cron); exit 5/6 when some stay open",
  help: `Usage: express-nicepay settle [--attention-after MINUTES] [--batch N]

One settlement pass over the shop's ledger store, as the shop's own settler runs it: each open
payment that is due (an unknown outcome, a reversal not confirmed, a cancel whose answer was
lost) is checked with the gateway and kept, reversed, or closed as never charged. Prints the
report as JSON { settled, unsettled } on stdout and one line per payment on stderr: what was
settled (operation, TID, Moid, amount, outcome) and what is still open (why, and when it is
tried next). A payment whose onApproved has not finished stays open for the shop's own
settler, which has the hook.
${EXIT_HELP}

Options:
${LEDGER_OPTIONS_HELP}

${LEDGER_ENV_HELP}`,
  options: { 'attention-after': { type: 'string' }, batch: { type: 'string' } },
  async run(values, io) {
    const settings = ledgerSettings(values);
    const report = await withLedgerClient(io, settings, (np) => np.settle());
    io.out(toJson(report));
    for (const s of report.settled) io.err(settledLine(s));
    for (const u of report.unsettled) io.err(openLine(u));
    io.err(`settled ${records(report.settled.length)}; ${openSummary(report.unsettled, settings.batch)}\n`);
    return exitFor(report.unsettled);
  },
};

/** CSV columns of `unsettled --csv`. */
export const UNSETTLED_COLUMNS = ['operation', 'tid', 'moid', 'amount', 'state', 'reason', 'attempts', 'nextAttemptAt', 'needsAttention'] as const;

/** `unsettled`: the open payments of the shop's ledger, without settling any. */
export const unsettledCommand: Command = {
  name: 'unsettled',
  summary: "list the shop's open payments, why, and when they are tried next",
  help: `Usage: express-nicepay unsettled [--attention-after MINUTES] [--batch N] [--csv]

Lists the open payments of the shop's ledger store without settling any (nothing is sent to the
gateway): operation, TID, Moid, amount, state, why it is open, attempts, when settlement tries
it next, and whether it needs attention. JSON on stdout (--csv: CSV), one line each on stderr.
${EXIT_HELP}

Options:
${LEDGER_OPTIONS_HELP}
  --csv              the list as CSV (nextAttemptAt as an ISO instant)

${LEDGER_ENV_HELP}`,
  options: { 'attention-after': { type: 'string' }, batch: { type: 'string' }, csv: { type: 'boolean' } },
  async run(values, io) {
    const settings = ledgerSettings(values);
    const open = await withLedgerClient(io, settings, (np) => np.unsettled());
    if (values['csv']) writeCsv(io, UNSETTLED_COLUMNS, open.map((u) => ({ ...u, nextAttemptAt: u.nextAttemptAt.toISOString() })));
    else io.out(toJson(open));
    for (const u of open) io.err(openLine(u));
    io.err(`${openSummary(open, settings.batch)}\n`);
    return exitFor(open);
  },
};
