/**
 * Micro-benchmark of the pure approval pipeline, with the real functions of src/wire, in the
 * order checkoutReturn and approve() run them: decode the EUC-KR auth return and check its
 * fields and Signature; build the signed approval form (SignData); parse the gateway's JSON
 * answer, verify its Signature and map it to a typed payment. No I/O in the timed loop: the
 * inputs are one real auth return and one real approval answer from an in-process sandbox.
 *
 *   npx tsx bench/pipeline.ts [iterations]
 */
import { request } from 'undici';
import { createSandbox } from '../src/sandbox/index.js';
import { parseAmount } from '../src/wire/amount.js';
import { APPROVAL_REQUEST_FIELDS, AUTH_RETURN_FIELDS, checkFields } from '../src/wire/field-sizes.js';
import { decodeForm, encodeForm, type FormFields } from '../src/wire/form-codec.js';
import { hexEquals } from '../src/wire/hash.js';
import { kstTimestamp14 } from '../src/wire/kst.js';
import { mapPayment } from '../src/wire/payment-mapper.js';
import { parseGatewayBody } from '../src/wire/response-body.js';
import { approvalResponseSignature, approvalSignData, authReturnSignature } from '../src/wire/signatures.js';
import { benchApprovalForm } from './approval-form.js';
import { BENCH_AMOUNT, BENCH_KEY, BENCH_MID } from './ipc.js';

export interface PipelineResult {
  iterations: number;
  /** Whole pipeline, microseconds per approval. */
  usPerApproval: number;
  /** Each stage alone, microseconds per call. */
  stages: Record<string, number>;
}

/** One real auth return (EUC-KR) and the sandbox's real approval answer to it. */
async function fixtures(): Promise<{ authBody: Buffer; answer: Buffer }> {
  const sandbox = createSandbox({ merchants: [{ mid: BENCH_MID, merchantKey: BENCH_KEY }] });
  await sandbox.listen(0);
  try {
    const r = await sandbox.authenticate({
      moid: 'bench-pipeline-1',
      amount: BENCH_AMOUNT,
      method: 'CARD',
      charset: 'euc-kr',
      goodsName: '벤치 상품',
      buyerName: '홍길동',
    });
    const f = r.fields;
    const ediDate = kstTimestamp14(new Date());
    const form = benchApprovalForm(f.TxTid!, f.AuthToken!, f.Amt!, ediDate);
    const res = await request(f.NextAppURL!, {
      method: 'POST',
      body: form,
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=euc-kr' },
    });
    const answer = Buffer.from(await res.body.arrayBuffer());
    const parsed = parseGatewayBody(answer, 'euc-kr', 'JSON');
    if (parsed.ResultCode !== '3001')
      throw new Error(`fixture approval was not approved: ${parsed.ResultCode} ${parsed.ResultMsg}`);
    return { authBody: r.body, answer };
  } finally {
    await sandbox.close();
  }
}

/** Stage 1: the auth return, as checkoutReturn reads it. */
function readAuthReturn(body: Buffer): FormFields {
  const form = decodeForm(body, 'euc-kr', { maxFields: 64 });
  if (checkFields(AUTH_RETURN_FIELDS, form, 'euc-kr')) throw new Error('fields');
  if (form.MID !== BENCH_MID || form.AuthResultCode !== '0000') throw new Error('auth');
  if (!hexEquals(authReturnSignature(form.AuthToken!, BENCH_MID, form.Amt!, BENCH_KEY), form.Signature!))
    throw new Error('signature');
  if (parseAmount(form.Amt!) !== BENCH_AMOUNT) throw new Error('amount');
  return form;
}

/** Stage 2: the signed approval form, as approve() builds it. */
function buildApproval(form: FormFields, now: Date): Buffer {
  const amt = String(BENCH_AMOUNT);
  const ediDate = kstTimestamp14(now);
  const fields: Record<string, string | undefined> = {
    TID: form.TxTid,
    AuthToken: form.AuthToken,
    MID: BENCH_MID,
    Amt: amt,
    EdiDate: ediDate,
    SignData: approvalSignData(form.AuthToken!, BENCH_MID, amt, ediDate, BENCH_KEY),
    CharSet: 'euc-kr',
    EdiType: 'JSON',
    MallReserved: undefined,
  };
  if (checkFields(APPROVAL_REQUEST_FIELDS, fields, 'euc-kr')) throw new Error('fields');
  return encodeForm(fields, 'euc-kr');
}

/** Stage 3: the answer, parsed and verified as approve() does. */
function verifyAnswer(answer: Buffer, tid: string): FormFields {
  const raw = parseGatewayBody(answer, 'euc-kr', 'JSON');
  if (raw.ResultCode !== '3001') throw new Error('result');
  if (
    !hexEquals(approvalResponseSignature(raw.TID ?? '', raw.MID ?? '', raw.Amt ?? '', BENCH_KEY), raw.Signature ?? '')
  )
    throw new Error('signature');
  if (raw.TID !== tid || raw.MID !== BENCH_MID || parseAmount(raw.Amt ?? '') !== BENCH_AMOUNT)
    throw new Error('answer');
  return raw;
}

let sink: unknown;

/** Microseconds per call: the best of 5 batches, since other processes share the cores. */
function time(iterations: number, fn: () => unknown): number {
  for (let i = 0; i < Math.min(2000, iterations); i++) sink = fn();
  const batch = Math.max(1, Math.floor(iterations / 5));
  let best = Infinity;
  for (let b = 0; b < 5; b++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) sink = fn();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1000 / batch);
  }
  return best;
}

export async function measurePipeline(iterations = 20_000): Promise<PipelineResult> {
  const { authBody, answer } = await fixtures();
  const now = new Date();
  const form0 = readAuthReturn(authBody);
  const raw0 = verifyAnswer(answer, form0.TxTid!);
  const whole = (): unknown => {
    const form = readAuthReturn(authBody);
    const approval = buildApproval(form, now);
    const raw = verifyAnswer(answer, form.TxTid!);
    return [approval, mapPayment(raw, 'CARD', BENCH_AMOUNT)];
  };
  const stages = {
    'decode + check auth return': time(iterations, () => readAuthReturn(authBody)),
    'build signed approval form': time(iterations, () => buildApproval(form0, now)),
    'parse + verify answer': time(iterations, () => verifyAnswer(answer, form0.TxTid!)),
    'map payment': time(iterations, () => mapPayment(raw0, 'CARD', BENCH_AMOUNT)),
    'sha256 hex (one)': time(iterations, () =>
      approvalSignData(form0.AuthToken!, BENCH_MID, '1004', '20261123090000', BENCH_KEY),
    ),
  };
  const usPerApproval = time(iterations, whole);
  void sink;
  return { iterations, usPerApproval, stages };
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/').split('/').pop()!);
if (isMain) {
  const n = Number(process.argv[2] ?? 50_000);
  const r = await measurePipeline(n);
  for (const [stage, us] of Object.entries(r.stages)) console.log(`${stage.padEnd(30)} ${us.toFixed(2)} us`);
  console.log(`${'whole pipeline'.padEnd(30)} ${r.usPerApproval.toFixed(2)} us/approval (${r.iterations} iterations)`);
}
