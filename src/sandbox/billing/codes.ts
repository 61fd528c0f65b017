import { SANDBOX_REQUEST_CODES } from '../request-codes.js';

/**
 * Result codes of the sandbox's billing endpoints. F100 (registered), F101 (removed), 3001
 * (approved) and F104 (limit exceeded) are from docs/spec/billing-facts.md; 1681 (duplicate
 * Moid) and 1621 (duplicate TID) are gateway-facts.md's approval-side codes, applied to the
 * billing charge. The facts publish no other failure codes, so the rest are the sandbox's own
 * (the request-level ones are `SANDBOX_REQUEST_CODES` in ../request-codes.ts, shared with the
 * key-in endpoint, where the meaning is the same).
 */
export const BILLING_CODES = {
  registered: { code: 'F100', message: '빌키가 정상적으로 생성되었습니다' },
  removed: { code: 'F101', message: '빌키가 정상적으로 삭제되었습니다' },
  approved: { code: '3001', message: '카드 결제 성공' },
  limitExceeded: { code: 'F104', message: '한도초과 (카드사 거절)' },
  /** A removed BID, an expired one, or one never issued to this merchant. */
  bidUnusable: { code: 'F112', message: '유효하지 않은 빌키입니다 (삭제 또는 만료)' },
  cardExpired: { code: 'F113', message: '유효기간이 만료된 카드입니다' },
  cardRefused: { code: 'F114', message: '등록할 수 없는 카드입니다 (분실·정지)' },
  unknownCard: { code: 'F115', message: '카드번호 오류입니다' },
  /** A charge whose Moid an approved charge of this merchant already holds (gateway-facts: 1681 / A127 duplicate Moid). */
  duplicateMoid: { code: '1681', message: '중복된 주문번호입니다' },
  ...SANDBOX_REQUEST_CODES,
  duplicateTid: { code: '1621', message: '중복된 승인 TID입니다' },
} as const;

/** One code and its message. */
export type BillingCode = { readonly code: string; readonly message: string };
