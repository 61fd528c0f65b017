/**
 * Which endpoint a fault applies to. `data` is every data host call; `payout-request` only the
 * payout request (sid 0102001), taken before a `data` fault.
 */
export type FaultTarget = 'approve' | 'net-cancel' | 'keyin' | 'data' | 'payout-request' | 'cancel' | 'status' | 'billing-register' | 'billing-charge' | 'billing-remove' | 'cash-receipt';

/**
 * A fault for the next call(s) of an endpoint:
 * - `delay`: answer after `delayMs` (past the client's timeout); `commit` says whether the
 *   gateway commits the payment before stalling (timeout after vs. before commit);
 * - `status-500`: a 500 with a short body; `html`: a 200 HTML error page;
 * - `bad-signature`: a valid-looking response with a wrong Signature;
 * - `drop`: the socket is destroyed (after committing when `commit`);
 * - `alter-amount`: the response reports another Amt (signed consistently, to catch clients
 *   that only check the signature);
 * - `truncate`: the body is cut in half;
 * - `decline`: (approval) the gateway refuses: nothing is committed and the answer carries
 *   `resultCode` / `resultMsg` (default 3011 and an issuer-style refusal). On the data host
 *   the answer's resCode is `resultCode` (default 9999, an internal error) with an empty body,
 *   after processing only with `commit: true` (`resultCode: '0000'` so: accepted without a seq).
 */
export type FaultKind = 'delay' | 'status-500' | 'html' | 'bad-signature' | 'drop' | 'alter-amount' | 'truncate' | 'decline';

/** A fault as queued. */
export interface Fault {
  target: FaultTarget;
  kind: FaultKind;
  /** For `delay`. @default 60000 */
  delayMs?: number;
  /** Whether the gateway commits the payment before the fault. @default true for delay/drop */
  commit?: boolean;
  /** For `decline`: the ResultCode answered. @default '3011' */
  resultCode?: string;
  /** For `decline`: the ResultMsg answered. @default '카드사 승인 거절(한도초과)' */
  resultMsg?: string;
  /** How many calls it applies to. @default 1 */
  times?: number;
}

/** The queue of faults the endpoints consult. */
export interface FaultQueue {
  /** Queues a fault for the next call(s) of its target. */
  inject(fault: Fault): void;
  /** Takes the next fault for `target`, if any (consuming one of its `times`). */
  take(target: FaultTarget): Fault | undefined;
  /** Drops every queued fault. */
  clear(): void;
  /** Faults still queued (for assertions that every injected fault was used). */
  pending(): readonly Fault[];
}

/** Creates an empty fault queue. */
export function createFaultQueue(): FaultQueue {
  const queue: Array<Fault & { left: number }> = [];
  return {
    inject(fault) {
      queue.push({ ...fault, left: fault.times ?? 1 });
    },
    take(target) {
      const i = queue.findIndex((f) => f.target === target);
      if (i === -1) return undefined;
      const f = queue[i]!;
      if (--f.left <= 0) queue.splice(i, 1);
      const { left: _left, ...fault } = f;
      return fault;
    },
    clear() {
      queue.length = 0;
    },
    pending() {
      return queue.map(({ left: _left, ...f }) => f);
    },
  };
}
