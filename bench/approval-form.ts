/**
 * The signed approval request the bench's own callers send for the bench merchant (the floor
 * server, the stub gateway's fixtures, the pipeline micro-benchmark, the instruction counter's
 * shop): EUC-KR form, JSON answer asked for in `charset`.
 */
import type { Charset } from '../src/wire/charset.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { approvalSignData } from '../src/wire/signatures.js';
import { BENCH_KEY, BENCH_MID } from './ipc.js';

/** The approval form of one authenticated TID, signed with the bench merchant's key. */
export function benchApprovalForm(
  tid: string,
  authToken: string,
  amt: string,
  ediDate: string,
  charset: Charset = 'euc-kr',
): Buffer {
  return encodeForm(
    {
      TID: tid,
      AuthToken: authToken,
      MID: BENCH_MID,
      Amt: amt,
      EdiDate: ediDate,
      SignData: approvalSignData(authToken, BENCH_MID, amt, ediDate, BENCH_KEY),
      CharSet: charset,
      EdiType: 'JSON',
    },
    'euc-kr',
  );
}
