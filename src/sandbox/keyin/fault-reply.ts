import { padAmount, parseAmount } from '../../wire/amount.js';
import type { FormFields } from '../../wire/form-codec.js';
import type { FaultKind, FaultTarget } from '../faults.js';
import { encodeKeyinReply, keyinReplyFormat, keyinResponse } from './reply.js';
import type { SandboxResponse, SandboxState } from '../types.js';

/** How one endpoint answers: its processing, and the answer when a fault stops it before committing. */
export interface FaultReplyPlan {
  /** Runs the call's checks and effects; returns the answer's fields. */
  process(): Record<string, string>;
  /**
   * The answer when nothing is committed (`decline` faults, or `commit: false`): `code` and
   * `message` are the fault's resultCode / resultMsg, `kind` says which fault stopped the call.
   */
  notCommitted(code: string | undefined, message: string | undefined, kind: FaultKind): Record<string, string>;
}

/**
 * Answers a key-in, billing or receipt call, applying the next fault of `target`
 * (src/sandbox/faults.ts): decline, delay, drop, 500, HTML page, truncated body, another Amt.
 * These answers carry no Signature, so `bad-signature` answers the HTML page.
 */
export function replyWithFault(
  state: SandboxState,
  target: FaultTarget,
  form: FormFields | undefined,
  plan: FaultReplyPlan,
): SandboxResponse {
  const format = keyinReplyFormat(form);
  const fault = state.faults.take(target);
  const declining = fault?.kind === 'decline';
  const commit = fault?.commit ?? !declining;
  let fields = fault && !commit ? plan.notCommitted(fault.resultCode, fault.resultMsg, fault.kind) : plan.process();
  // The approval's own AuthCode stays with its transaction: the status inquiry answers it.
  const booked = fields.AuthCode ? state.ledger.get(fields.TID ?? '') : undefined;
  if (booked && booked.extra.authCode === undefined) booked.extra.authCode = fields.AuthCode!;
  if (fault?.kind === 'alter-amount') {
    // The amount the answer reports: Amt, or a receipt's ReceiptAmt.
    const name = Object.hasOwn(fields, 'Amt') ? 'Amt' : 'ReceiptAmt';
    const amount = parseAmount(fields[name] ?? '');
    if (amount !== undefined) fields = { ...fields, [name]: padAmount(amount + 1000) };
  }
  const body = encodeKeyinReply(fields, format);
  if (!fault) return keyinResponse(body, format);
  switch (fault.kind) {
    case 'alter-amount':
    case 'decline':
      return keyinResponse(body, format);
    case 'delay':
      return keyinResponse(body, format, { delayMs: fault.delayMs ?? 60_000 });
    case 'drop':
      return { status: 200, body: '', drop: true };
    case 'status-500':
      return {
        status: 500,
        headers: { 'content-type': 'text/html;charset=euc-kr' },
        body: '<html><body><h1>500 Internal Server Error</h1></body></html>',
      };
    case 'html':
    case 'bad-signature':
      return keyinResponse(
        '<html><head><title>NICEPAY</title></head><body><p>System error. Please try again later.</p></body></html>',
        format,
      );
    case 'truncate':
      return keyinResponse(body.subarray(0, Math.floor(body.length / 2)), format);
    default: {
      const never: never = fault.kind;
      throw new Error(`sandbox: unknown fault kind ${String(never)}`);
    }
  }
}
