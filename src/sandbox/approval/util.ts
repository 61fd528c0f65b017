import { randomBytes, randomInt } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { PayMethod } from '../../types/payment.js';
import { type Charset, normalizeCharset } from '../../wire/charset.js';
import { kstTimestamp12 } from '../../wire/kst.js';
import type { LedgerEntry } from '../ledger.js';
import type { SandboxState } from '../types.js';

/** The four methods of interface A with the TID method code and the Korean label of the window. */
export const METHODS: Readonly<Record<PayMethod, { code: string; label: string }>> = {
  CARD: { code: '01', label: '신용카드' },
  BANK: { code: '02', label: '계좌이체' },
  VBANK: { code: '03', label: '가상계좌' },
  CELLPHONE: { code: '05', label: '휴대폰' },
};

/** True when `value` is one of the four method names. */
export function isMethod(value: string | undefined): value is PayMethod {
  return value !== undefined && Object.hasOwn(METHODS, value);
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** `n` random characters of [A-Z0-9]. */
export function randomAlnum(n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += ALNUM[randomInt(ALNUM.length)];
  return out;
}

/** `n` random decimal digits (approval numbers, account numbers). */
export function randomDigits(n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += String(randomInt(10));
  return out;
}

/**
 * A new 30-byte TID: MID(10) + method code(2) + medium '01' + KST YYMMDDHHMISS + 4 random
 * characters, unique within the ledger. `methodCode` is '01' card ... '05' cellphone.
 */
export function newTid(state: SandboxState, mid: string, methodCode: string): string {
  const stem = `${mid + methodCode}01${kstTimestamp12(state.clock.now())}`;
  for (;;) {
    const tid = stem + randomAlnum(4);
    if (!state.ledger.get(tid)) return tid;
  }
}

/**
 * The cash receipt of a BANK or VBANK entry that asked for one: its TID and approval number,
 * drawn once and kept on the entry, so the approval answer (RcptTID, RcptAuthCode), the deposit
 * notice and reconciliation (tid, appNo) name the same receipt.
 */
export function cashReceiptIds(state: SandboxState, entry: LedgerEntry): { tid: string; authCode: string } {
  const x = entry.extra;
  x.rcptTid ??= newTid(state, entry.mid, '04');
  x.rcptAuthCode ??= randomDigits(9);
  return { tid: x.rcptTid, authCode: x.rcptAuthCode };
}

/** A fresh 40-character AuthToken shaped like the manual's example (NICETOKN + 32 hex). */
export function newAuthToken(): string {
  return `NICETOKN${randomBytes(16).toString('hex').toUpperCase()}`;
}

/** An amount as the window shows it: thousands separators and 원 ("1,004원"). */
export function formatWon(amount: number): string {
  return `${String(amount).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}원`;
}

/** Escapes text for an HTML text node or a double-quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The charset named by a Content-Type header's `charset` parameter, if it names one we speak. */
export function headerCharset(headers: IncomingHttpHeaders): Charset | undefined {
  const ct = headers['content-type'];
  const m = ct ? /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(ct) : null;
  return m ? normalizeCharset(m[2]) : undefined;
}

/** A short unique marker put in every gateway response as an unlisted field (SandboxTrace). */
export function traceId(): string {
  return `sbx-${randomBytes(6).toString('hex')}`;
}
