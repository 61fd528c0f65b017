import { parseAmount, padAmount } from '../../wire/amount.js';
import { sha256Hex } from '../../wire/hash.js';
import type { FaultKind, FaultTarget } from '../faults.js';
import type { SandboxResponse, SandboxState } from '../types.js';
import { type ReplyFormat, encodeReply, gatewayResponse } from './gateway-io.js';
import { faultHtmlPage } from './html.js';

/** Net-cancel faults that by default fail the cancel itself (nothing processed). */
const NET_CANCEL_FAILS: ReadonlySet<FaultKind> = new Set(['status-500', 'html']);

/** What an endpoint hands to {@link answerWithFault}. */
export interface FaultableCall {
  format: ReplyFormat;
  /** Processes the request for real (may commit) and returns the response fields. */
  process(): Record<string, string>;
  /** The fields answered when a fault says `commit: false` (nothing is processed). */
  notCommitted(): Record<string, string>;
  /** The refusal answered for a `decline` fault (books the transaction as declined). */
  decline?(code: string, message: string): Record<string, string>;
  /** The amount field `alter-amount` changes ('Amt' or 'CancelAmt'). */
  amountField: string;
  /** Recomputes the Signature over (altered) fields, for `alter-amount`. */
  sign(fields: Record<string, string>): string;
}

/**
 * Answers a gateway call, applying the next queued fault of `target`, if any. Each fault
 * picks the worse case for the client by default: on approval every fault processes
 * (commits) the request first; on net cancel `status-500` and `html` process nothing (the
 * cancel failed, the payment stands) while `delay`, `drop` and `truncate` commit the cancel.
 * An explicit `commit` overrides the default. Then: `delay` answers after delayMs (default 60 s); `drop` destroys the socket;
 * `status-500` answers 500; `html` answers a 200 HTML error page; `bad-signature` answers with
 * a wrong Signature; `alter-amount` reports amount + 1000 signed consistently; `truncate`
 * sends the first half of the body.
 */
export function answerWithFault(state: SandboxState, target: FaultTarget, call: FaultableCall): SandboxResponse {
  const fault = state.faults.take(target);
  if (fault?.kind === 'decline') {
    const code = fault.resultCode ?? '3011';
    const message = fault.resultMsg ?? '카드사 승인 거절(한도초과)';
    const refused = call.decline
      ? call.decline(code, message)
      : { ...call.notCommitted(), ResultCode: code, ResultMsg: message };
    return gatewayResponse(encodeReply(refused, call.format), call.format);
  }
  const commit = fault ? (fault.commit ?? !(target === 'net-cancel' && NET_CANCEL_FAILS.has(fault.kind))) : true;
  const fields = fault && !commit ? call.notCommitted() : call.process();
  const reply = (f: Record<string, string>): SandboxResponse =>
    gatewayResponse(encodeReply(f, call.format), call.format);
  if (!fault) return reply(fields);
  switch (fault.kind) {
    case 'delay':
      return { ...reply(fields), delayMs: fault.delayMs ?? 60_000 };
    case 'drop':
      return { status: 200, body: '', drop: true };
    case 'status-500':
      return {
        status: 500,
        headers: { 'content-type': 'text/html;charset=euc-kr' },
        body: '<html><body><h1>500 Internal Server Error</h1></body></html>',
      };
    case 'html':
      return { status: 200, headers: { 'content-type': 'text/html;charset=euc-kr' }, body: faultHtmlPage() };
    case 'bad-signature':
      return reply({ ...fields, Signature: sha256Hex(`sandbox-bad-signature:${fields.Signature ?? ''}`) });
    case 'alter-amount': {
      const amount = parseAmount(fields[call.amountField] ?? '');
      if (amount === undefined) return reply(fields);
      const altered = { ...fields, [call.amountField]: padAmount(amount + 1000) };
      return reply({ ...altered, Signature: call.sign(altered) });
    }
    case 'truncate': {
      const body = encodeReply(fields, call.format);
      return gatewayResponse(body.subarray(0, Math.floor(body.length / 2)), call.format);
    }
    default: {
      const never: never = fault.kind;
      throw new Error(`sandbox: unknown fault kind ${String(never)}`);
    }
  }
}
