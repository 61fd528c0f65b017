import { decodeBytes } from '../../wire/charset.js';
import { mediaType } from '../../wire/content-type.js';
import { SID } from '../../wire/data-fields.js';
import { kstTimestamp14 } from '../../wire/kst.js';
import { checkGatewayTime } from '../gateway-time.js';
import { checkFields, type FieldTable } from '../../wire/field-sizes.js';
import type { FaultTarget } from '../faults.js';
import type { SandboxRequest, SandboxResponse, SandboxState } from '../types.js';

/** A refusal: the envelope's resCode and resMsg. */
export class DataHostRefusal extends Error {
  /** The request's sid when it was readable, so the refusal answers under it. */
  sid = '';
  /** The request as received when it was readable JSON, echoed as the refusal's reqInfo. */
  raw: unknown = undefined;
  constructor(
    readonly resCode: string,
    readonly resMsg: string,
  ) {
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

/**
 * Codes the sandbox's data host invents where the documents list none (gateway-facts.md gives
 * the list it follows elsewhere). docs/sandbox.md, "Sandbox: key-in and data host", lists them.
 */
export const SANDBOX_DATA_CODES = {
  /** Sub-merchant registration or modification 23:00-01:00 KST (spec, Errors 5). */
  registrationBlackout: '1108',
  /** A payout date before today (spec, Errors 4); 1107 is the 10:30 cut-off in the facts. */
  pastDate: '1109',
  /** Results queried before 16:00 KST of the payout day (spec, Limits). */
  resultsNotReady: '1110',
  /** A modification carrying another subCoNo (spec: "cannot be changed"). */
  subCoNoChanged: '1111',
  /** A cross-border sub-merchant's payout requested on or after its payout day (spec, Limits). */
  crossBorderCutoff: '1112',
  /** trDtm more than the tolerance away from the gateway clock (a UTC time, say). */
  trDtmSkew: '1113',
} as const;

/**
 * Parses and checks the envelope: strict UTF-8 JSON `{ header, body }` (declared
 * application/json, or not declared); header gubun `S`,
 * resCode and resMsg empty (spec, Envelope); trDtm a KST time within the tolerance of the
 * sandbox clock `now` (gateway-time.ts); body values strings (0270 otherwise). Nothing is
 * trimmed: a value is taken as sent.
 */
export function readEnvelope(req: SandboxRequest, now: Date, toleranceMs?: number): DataHostRequest {
  // The documented media type, or none (the sandbox's leniency): a body declared as a form or
  // text is not read as JSON, as the gateway would not.
  const type = mediaType(req.headers['content-type']);
  if (type !== '' && type !== 'application/json')
    throw new DataHostRefusal('0101', '전문 형식 오류 (Content-Type이 application/json이 아닙니다)');
  let raw: unknown;
  try {
    raw = JSON.parse(decodeBytes(req.body, 'utf-8'));
  } catch {
    throw new DataHostRefusal('0101', '전문 형식 오류 (UTF-8 JSON이 아닙니다)');
  }
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObj(raw) || !isObj(raw['header']) || !isObj(raw['body']))
    throw new DataHostRefusal('0101', '전문 형식 오류 (header/body)');
  const header = raw['header'];
  const sid = typeof header['sid'] === 'string' ? header['sid'] : '';
  const trDtm = typeof header['trDtm'] === 'string' ? header['trDtm'] : '';
  try {
    if (!sid) throw new DataHostRefusal('0210', '필수값 누락: sid');
    return readHeaderAndBody(raw, raw['body'], header, sid, trDtm, now, toleranceMs);
  } catch (err) {
    if (err instanceof DataHostRefusal) {
      err.sid = sid;
      err.raw = raw;
    }
    throw err;
  }
}

function readHeaderAndBody(
  raw: unknown,
  rawBody: Record<string, unknown>,
  header: Record<string, unknown>,
  sid: string,
  trDtm: string,
  now: Date,
  toleranceMs?: number,
): DataHostRequest {
  if (header['gubun'] !== 'S') throw new DataHostRefusal('0101', '전문 형식 오류: gubun (요청은 S)');
  if (header['resCode'] !== '' || header['resMsg'] !== '')
    throw new DataHostRefusal('0101', '전문 형식 오류: resCode/resMsg (요청은 빈 값)');
  const timeProblem = checkGatewayTime(trDtm, now, toleranceMs);
  if (timeProblem === 'format' || !/^\d{14}$/.test(trDtm)) throw new DataHostRefusal('0270', '형식 오류: trDtm');
  if (timeProblem === 'skew')
    throw new DataHostRefusal(SANDBOX_DATA_CODES.trDtmSkew, 'trDtm이 게이트웨이 시각(KST)과 10분 이상 다릅니다');
  const body: Record<string, string> = {};
  for (const [k, v] of Object.entries(rawBody)) {
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

/**
 * The answer to a refusal: its code and message, and as body the reqInfo echo of the request
 * (spec, Envelope: "A response body also contains reqInfo") whenever the request was readable
 * as an envelope; a body that was no JSON object has nothing to echo.
 */
export function refusalAnswer(state: SandboxState, err: DataHostRefusal, sid: string, raw: unknown): SandboxResponse {
  const echo = err.raw ?? raw;
  return answer(state, err.sid || sid, err.resCode, err.resMsg, echo === undefined ? {} : { reqInfo: echo });
}

/** A JSON envelope answer (gubun R). */
export function answer(
  state: SandboxState,
  sid: string,
  resCode: string,
  resMsg: string,
  body: Record<string, unknown>,
): SandboxResponse {
  const envelope = { header: { sid, trDtm: kstTimestamp14(state.clock.now()), gubun: 'R', resCode, resMsg }, body };
  return {
    status: 200,
    headers: { 'content-type': 'application/json;charset=utf-8' },
    body: Buffer.from(JSON.stringify(envelope), 'utf8'),
  };
}

/** The sid of a request body, when it is readable as an envelope ('' otherwise), to pick its fault. */
export function peekSid(req: SandboxRequest): string {
  try {
    const raw: unknown = JSON.parse(decodeBytes(req.body, 'utf-8'));
    const header = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>)['header'] : undefined;
    const sid = typeof header === 'object' && header !== null ? (header as Record<string, unknown>)['sid'] : undefined;
    return typeof sid === 'string' ? sid : '';
  } catch {
    return '';
  }
}

/** An answer's envelope with its body edited (a fault that answers other than the books say). */
function editBody(res: SandboxResponse, edit: (body: Record<string, unknown>) => void): SandboxResponse {
  const envelope = JSON.parse(Buffer.isBuffer(res.body) ? res.body.toString('utf8') : res.body) as {
    body: Record<string, unknown>;
  };
  edit(envelope.body);
  return { ...res, body: Buffer.from(JSON.stringify(envelope), 'utf8') };
}

/** The fault targets of one sid alone, taken before a `data` fault. */
const OWN_TARGET: Readonly<Record<string, FaultTarget>> = {
  [SID.payoutRequest]: 'payout-request',
  [SID.payoutCancel]: 'payout-cancel',
};

/**
 * Runs a data host handler with the queued fault applied: a `payout-request` fault for a payout
 * request (sid 0102001), a `payout-cancel` fault for a payout cancel (sid 0103001), else a
 * `data` fault. status-500 and html answer without processing;
 * delay, drop and truncate process first (unless `commit: false`), then stall, drop the socket
 * or cut the body in half; decline answers `resultCode` (default 9999) with an empty body,
 * processing first only with `commit: true`; alter-amount processes, then reports settlmntAmt + 1.
 */
export async function withFaults(state: SandboxState, work: () => SandboxResponse, sid = ''): Promise<SandboxResponse> {
  const own = Object.hasOwn(OWN_TARGET, sid) ? OWN_TARGET[sid] : undefined;
  const fault = (own ? state.faults.take(own) : undefined) ?? state.faults.take('data');
  if (!fault) return work();
  const commit = fault.commit ?? true;
  switch (fault.kind) {
    case 'status-500':
      return { status: 500, headers: { 'content-type': 'text/plain' }, body: 'Internal Server Error' };
    case 'html':
      return {
        status: 200,
        headers: { 'content-type': 'text/html;charset=utf-8' },
        body: '<html><body><h1>서비스 점검 중입니다</h1></body></html>',
      };
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
    case 'decline': {
      if (fault.commit === true) work();
      return answer(state, sid, fault.resultCode ?? '9999', fault.resultMsg ?? '시스템 오류', {});
    }
    case 'alter-amount':
      return editBody(work(), (body) => {
        if (typeof body['settlmntAmt'] === 'number') body['settlmntAmt'] += 1;
      });
    default:
      return work();
  }
}
