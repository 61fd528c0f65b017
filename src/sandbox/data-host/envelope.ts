import { kstTimestamp14 } from '../../wire/kst.js';
import { checkFields, type FieldTable } from '../../wire/field-sizes.js';
import type { SandboxRequest, SandboxResponse, SandboxState } from '../types.js';

/** A refusal: the envelope's resCode and resMsg. */
export class DataHostRefusal extends Error {
  constructor(readonly resCode: string, readonly resMsg: string) {
    super(`${resCode} ${resMsg}`);
  }
}

/** A parsed request envelope (values as sent). */
export interface DataHostRequest {
  header: Record<string, unknown>;
  sid: string;
  trDtm: string;
  body: Record<string, string>;
  /** The request as received, echoed back as reqInfo. */
  raw: unknown;
}

/** Parses and checks the envelope shape; body values must be strings (0270 otherwise). */
export function readEnvelope(req: SandboxRequest): DataHostRequest {
  let raw: unknown;
  try {
    raw = JSON.parse(req.body.toString('utf8'));
  } catch {
    throw new DataHostRefusal('0101', '전문 형식 오류 (JSON이 아닙니다)');
  }
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObj(raw) || !isObj(raw['header']) || !isObj(raw['body'])) throw new DataHostRefusal('0101', '전문 형식 오류 (header/body)');
  const header = raw['header'];
  const sid = typeof header['sid'] === 'string' ? header['sid'] : '';
  const trDtm = typeof header['trDtm'] === 'string' ? header['trDtm'] : '';
  if (!sid) throw new DataHostRefusal('0210', '필수값 누락: sid');
  if (!/^\d{14}$/.test(trDtm)) throw new DataHostRefusal('0270', '형식 오류: trDtm');
  const body: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw['body'])) {
    if (typeof v !== 'string') throw new DataHostRefusal('0270', `형식 오류: ${k} (문자열이어야 합니다)`);
    body[k] = v;
  }
  return { header, sid, trDtm, body, raw };
}

/** Applies a field table in UTF-8 bytes: 0210 missing, 0260 too long, 0270 format. */
export function checkBody(table: FieldTable, body: Record<string, string>): void {
  const p = checkFields(table, body, 'utf-8');
  if (!p) return;
  if (p.rule === 'required') throw new DataHostRefusal('0210', `필수값 누락: ${p.field}`);
  if (p.rule === 'too-long') throw new DataHostRefusal('0260', `길이 초과: ${p.field}`);
  throw new DataHostRefusal('0270', `형식 오류: ${p.field}`);
}

/** A JSON envelope answer (gubun R). */
export function answer(state: SandboxState, sid: string, resCode: string, resMsg: string, body: Record<string, unknown>): SandboxResponse {
  const envelope = { header: { sid, trDtm: kstTimestamp14(state.clock.now()), gubun: 'R', resCode, resMsg }, body };
  return { status: 200, headers: { 'content-type': 'application/json;charset=utf-8' }, body: Buffer.from(JSON.stringify(envelope), 'utf8') };
}

/**
 * Runs a data host handler with the queued 'data' fault applied:
 * status-500 and html answer without processing; delay, drop and truncate process first
 * (unless `commit: false`), then stall, drop the socket or cut the body in half.
 */
export async function withFaults(state: SandboxState, work: () => SandboxResponse): Promise<SandboxResponse> {
  const fault = state.faults.take('data');
  if (!fault) return work();
  const commit = fault.commit ?? true;
  switch (fault.kind) {
    case 'status-500':
      return { status: 500, headers: { 'content-type': 'text/plain' }, body: 'Internal Server Error' };
    case 'html':
      return { status: 200, headers: { 'content-type': 'text/html;charset=utf-8' }, body: '<html><body><h1>서비스 점검 중입니다</h1></body></html>' };
    case 'delay': {
      const res = commit ? work() : { status: 500, body: '' };
      return { ...res, delayMs: fault.delayMs ?? 60_000 };
    }
    case 'drop': {
      if (commit) work();
      return { status: 500, body: '', drop: true };
    }
    case 'truncate': {
      const res = work();
      const buf = Buffer.isBuffer(res.body) ? res.body : Buffer.from(res.body, 'utf8');
      return { ...res, body: buf.subarray(0, Math.floor(buf.length / 2)) };
    }
    default:
      return work();
  }
}
