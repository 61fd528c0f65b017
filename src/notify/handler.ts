import type { ClientContext } from '../context.js';
import { NicepayError } from '../errors/index.js';
import { errorText, type HookRun, runNoticeHook } from '../pipeline/index.js';
import { cancelOccurrences, settleNotifiedCancel } from './cancel-occurrences.js';
import { parseAmount } from '../wire/amount.js';
import { decodeForm, emptyFields, type FormFields } from '../wire/form-codec.js';
import { ownCopy } from '../own-copy.js';
import { parseKstTimestamp } from '../wire/kst.js';
import { noticeKey } from './identity.js';
import { type ResolvedNotificationsOptions, sourceAddress } from './options.js';
import type { CancelNotice, DepositNotice, NoticeAnswer } from './types.js';

export { noticeBodyCharset } from './identity.js';

/** How long a handled notice answers its repeats: the gateway retries for at most 10 x 10 min. */
const NOTICE_RESULT_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** One notice as the transport delivered it. */
export interface IncomingNotice {
  /** The socket's remote address. */
  socketAddress: string | undefined;
  /** The X-Forwarded-For header, read only when proxies are trusted. */
  forwardedFor: string | undefined;
  /**
   * The raw body (form-urlencoded EUC-KR), or how to read it: it is read only once the source
   * address was accepted, so a foreign sender costs nothing.
   */
  body: Buffer | (() => Promise<Buffer>);
}

/** Fields never kept or passed on: captures show an undocumented merchant key (lifecycle-facts §3). */
const DROPPED = new Set(['merchantkey']);

/** Approval codes a notice may carry for methods other than VBANK deposits (acknowledged, ignored). */
const APPROVAL_NOTICE_CODES = new Set(['3001', '4000', 'A000', '4100']);

/**
 * The notifications client (lifecycle-facts §3): source address first; then the EUC-KR form;
 * ResultCode 4110 + PayMethod VBANK is a deposit, StateCd 1/2 a cancel; MOID, TID, MID and Amt
 * are checked against the shop's order; the hook runs once per notice through the store and
 * `OK` is answered only after it resolved. Nothing of a notice is logged but TID, MOID and the
 * codes; every refusal is logged with its reason.
 */
export function createNoticeHandler(
  ctx: ClientContext,
  opts: ResolvedNotificationsOptions,
): (notice: IncomingNotice) => Promise<NoticeAnswer> {
  const { config } = ctx;
  const refuse = (
    status: number,
    outcome: NoticeAnswer['outcome'],
    why: string,
    log: Record<string, unknown> = {},
  ): NoticeAnswer => {
    config.logger.warn({ step: 'notice', outcome, ...log }, `notice refused: ${why}`);
    return { status, body: 'FAIL', outcome };
  };

  return function handleNotice(n: IncomingNotice): Promise<NoticeAnswer> {
    // After close() nothing runs: FAIL has the gateway deliver it again later (or elsewhere).
    if (ctx.isClosing())
      return Promise.resolve(refuse(503, 'shutting-down', 'the server is shutting down; the gateway will retry'));
    // Tracked, so close() waits for a notice whose hook is running.
    return ctx.track(handle(n));
  };

  async function handle(n: IncomingNotice): Promise<NoticeAnswer> {
    const from = sourceAddress(n.socketAddress, n.forwardedFor, opts.proxyHops);
    if (from === undefined || !opts.allowedIps.has(from)) {
      // The source address is the only documented authentication of a notice.
      return refuse(403, 'forbidden-source', `source address ${from ?? 'unknown'} is not an allowed gateway address`);
    }
    let form: FormFields;
    try {
      // Notices are EUC-KR whatever the header says (there is no charset parameter to rely on).
      form = ownFields(decodeForm(typeof n.body === 'function' ? await n.body() : n.body, 'euc-kr', { maxFields: 80 }));
    } catch (err) {
      // A body the reader refused (wrong media type, too large) is passed on with its own status.
      if (err instanceof NicepayError) throw err;
      return refuse(400, 'malformed', `body is not an EUC-KR form (${(err as Error).message})`);
    }
    const get = (k: string): string => (form[k] ?? '').trim();
    const tid = get('TID');
    const moid = get('MOID');
    const resultCode = get('ResultCode');
    const payMethod = get('PayMethod');
    const stateCd = get('StateCd');
    const log = { tid, moid, resultCode, payMethod, stateCd };
    if (!tid || !moid || !resultCode) return refuse(400, 'malformed', 'TID, MOID and ResultCode are required', log);
    if (get('MID') !== config.mid) return refuse(409, 'mismatch', 'MID is not this merchant', log);
    const amount = parseAmount(get('Amt'));
    if (amount === undefined) return refuse(400, 'malformed', 'Amt is not a number of won', log);

    const isDeposit = resultCode === '4110' && payMethod === 'VBANK';
    const isCancel = stateCd === '1' || stateCd === '2';
    if (!isDeposit && !isCancel) {
      if (APPROVAL_NOTICE_CODES.has(resultCode) && stateCd !== '') {
        config.logger.info(
          { step: 'notice', outcome: 'ignored', ...log },
          'notice acknowledged: not a deposit or a cancel',
        );
        return { status: 200, body: 'OK', outcome: 'ignored' };
      }
      return refuse(400, 'malformed', 'neither a deposit (4110 VBANK) nor a cancel (StateCd 1/2)', log);
    }

    let order: { amount: number; tid?: string } | undefined;
    try {
      const got = await opts.expectedAmount(moid);
      order = typeof got === 'number' ? { amount: got } : (got ?? undefined);
    } catch (err) {
      config.logger.error({ step: 'notice', ...log, error: (err as Error)?.message }, 'notice: expectedAmount failed');
      return { status: 500, body: 'FAIL', outcome: 'hook-failed' };
    }
    if (!order) return refuse(404, 'unknown-order', 'no order with this MOID', log);
    if (!Number.isSafeInteger(order.amount) || order.amount <= 0) {
      config.logger.error(
        { step: 'notice', ...log },
        'notice: expectedAmount must return a positive integer number of won',
      );
      return { status: 500, body: 'FAIL', outcome: 'hook-failed' };
    }
    if (order.tid !== undefined && order.tid !== tid)
      return refuse(409, 'mismatch', "TID is not the order's transaction", log);
    // The shop's amount is the truth: a deposit must match it, a cancel cannot exceed it.
    if (isDeposit ? amount !== order.amount : amount > order.amount)
      return refuse(409, 'mismatch', `Amt differs from the order's amount`, log);

    const raw = rawFields(form);
    if (!isDeposit) {
      try {
        await settleNotifiedCancel(ctx, get);
      } catch (err) {
        config.logger.error(
          { step: 'notice', ...log, error: err instanceof NicepayError ? err.code : errorText(err) },
          'cancel notice not handled: store unavailable; the gateway will retry',
        );
        return { status: 503, body: 'FAIL', outcome: 'store-unavailable' };
      }
    }
    if (!isDeposit && !opts.onCancel) {
      config.logger.info({ step: 'notice', outcome: 'ignored', ...log }, 'cancel notice acknowledged: no onCancel');
      return { status: 200, body: 'OK', outcome: 'ignored' };
    }
    const hookName = isDeposit ? 'onDeposit' : 'onCancel';
    let run: HookRun = { state: 'done' };
    try {
      if (isDeposit) {
        run = await runNoticeHook(
          ctx,
          {
            key: noticeKey(config.mid, 'deposit', get),
            timeoutMs: opts.hookTimeoutMs,
            keepMs: NOTICE_RESULT_TTL_MS,
            hookName,
            log: { ...log, step: 'notice' },
          },
          (context) => opts.onDeposit(depositNotice(raw, tid, moid, amount), context),
        );
      } else {
        // The first occurrence not handled yet is this notice's; all handled: a repeat.
        for (const o of await cancelOccurrences(ctx, get)) {
          const notice = cancelNotice(
            raw,
            tid,
            moid,
            amount,
            payMethod,
            stateCd as '1' | '2',
            o.cancelMoid,
            o.occurrence,
          );
          run = await runNoticeHook(
            ctx,
            {
              key: o.key,
              timeoutMs: opts.hookTimeoutMs,
              keepMs: NOTICE_RESULT_TTL_MS,
              hookName,
              log: { ...log, occurrence: o.occurrence, step: 'notice' },
            },
            (context) => opts.onCancel!(notice, context),
          );
          if (run.state !== 'done') break;
        }
      }
    } catch (err) {
      config.logger.error(
        { step: 'notice', ...log, error: err instanceof NicepayError ? err.code : errorText(err) },
        'notice not handled: store unavailable; the gateway will retry',
      );
      return { status: 503, body: 'FAIL', outcome: 'store-unavailable' };
    }
    // OK only once the hook resolved (here or before): never while it runs, never after it threw.
    if (run.state === 'in-progress' || (run.state === 'ran' && run.verdict.kind === 'hung')) {
      config.logger.warn(
        { step: 'notice', outcome: 'in-progress', ...log },
        `notice not answered OK: ${hookName} is still running; the gateway will retry`,
      );
      return { status: 409, body: 'FAIL', outcome: 'in-progress' };
    }
    if (run.state === 'ran' && run.verdict.kind === 'rejected') {
      config.logger.error(
        { step: 'notice', ...log, late: run.verdict.late, error: errorText(run.verdict.error) },
        `${hookName} failed: answered FAIL, the gateway will retry`,
      );
      return { status: 500, body: 'FAIL', outcome: 'hook-failed' };
    }
    if (run.state === 'ran' && run.verdict.kind === 'resolved' && run.verdict.late)
      config.logger.warn(
        { step: 'notice', outcome: 'late', ...log },
        `${hookName} resolved after its signal aborted: answered OK`,
      );
    const repeat = run.state === 'done';
    const outcome: NoticeAnswer['outcome'] = isDeposit
      ? repeat
        ? 'deposit-repeat'
        : 'deposit'
      : repeat
        ? 'cancel-repeat'
        : 'cancel';
    config.logger.info({ step: 'notice', outcome, ...log }, 'notice handled');
    return { status: 200, body: 'OK', outcome };
  }
}

/**
 * The notice's fields without the ones never passed on, each a copy of its own (ownCopy): a value
 * cut from the body would keep the whole notice (a depositor's account, the MerchantKey some
 * captures show) in whatever keeps it: a hook's argument, a log line, a record.
 */
function ownFields(form: FormFields): FormFields {
  const out = emptyFields();
  for (const k of Object.keys(form)) if (!DROPPED.has(k.toLowerCase())) out[k] = ownCopy(form[k]!);
  return out;
}

/** The notice's fields, as passed on. */
function rawFields(form: FormFields): Readonly<Record<string, string>> {
  return Object.freeze({ ...form });
}

function depositNotice(
  raw: Readonly<Record<string, string>>,
  tid: string,
  moid: string,
  amount: number,
): DepositNotice {
  const f = (k: string): string => (Object.hasOwn(raw, k) ? raw[k]!.trim() : '');
  return {
    tid,
    moid,
    amount,
    depositedAt: f('AuthDate') ? parseKstTimestamp(f('AuthDate')) : undefined,
    accountNumber: f('VbankNum'),
    bankName: f('VbankName') || f('FnName'),
    bankCode: f('FnCd'),
    depositorName: f('VbankInputName'),
    raw,
  };
}

function cancelNotice(
  raw: Readonly<Record<string, string>>,
  tid: string,
  moid: string,
  amount: number,
  payMethod: string,
  stateCd: '1' | '2',
  cancelMoid: string,
  occurrence: number,
): CancelNotice {
  return {
    tid,
    moid,
    amount,
    payMethod,
    stateCd,
    cancelDate: Object.hasOwn(raw, 'CancelDate') ? raw.CancelDate!.trim() : '',
    cancelMoid,
    occurrence,
    raw,
  };
}
