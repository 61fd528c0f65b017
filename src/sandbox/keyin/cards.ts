import { SANDBOX_REQUEST_CODES } from '../request-codes.js';

/** How the sandbox's issuer answers a test card. */
export type SandboxCardOutcome = 'approved' | 'expired' | 'lost-stolen' | 'suspended' | 'limit-exceeded';

/** One test card of the sandbox key-in endpoint. */
export interface SandboxTestCard {
  outcome: SandboxCardOutcome;
  /** Issuer (CardCode 4 / CardName 20 bytes) and acquirer (AcquCardCode / AcquCardName). */
  cardCode: string;
  cardName: string;
  acquCode: string;
  acquName: string;
  /** CardCl: 0 credit, 1 debit (check). */
  cardCl: '0' | '1';
}

/**
 * The sandbox's test card numbers, all Luhn-valid. Any other number is declined with
 * {@link KEYIN_DECLINES}.unknownCard. A past CardExpire is declined as expired whatever the card.
 */
export const SANDBOX_TEST_CARDS: Readonly<Record<string, SandboxTestCard>> = {
  '4111111111111111': {
    outcome: 'approved',
    cardCode: '06',
    cardName: '신한',
    acquCode: '06',
    acquName: '신한카드',
    cardCl: '0',
  },
  '5555555555554444': {
    outcome: 'approved',
    cardCode: '07',
    cardName: '현대',
    acquCode: '07',
    acquName: '현대카드',
    cardCl: '0',
  },
  '4000056655665556': {
    outcome: 'approved',
    cardCode: '02',
    cardName: 'KB국민',
    acquCode: '02',
    acquName: 'KB국민카드',
    cardCl: '1',
  },
  '4000000000000069': {
    outcome: 'expired',
    cardCode: '04',
    cardName: '삼성',
    acquCode: '04',
    acquName: '삼성카드',
    cardCl: '0',
  },
  '4000000000009979': {
    outcome: 'lost-stolen',
    cardCode: '08',
    cardName: '롯데',
    acquCode: '08',
    acquName: '롯데카드',
    cardCl: '0',
  },
  '4000000000000002': {
    outcome: 'suspended',
    cardCode: '01',
    cardName: '비씨',
    acquCode: '01',
    acquName: '비씨카드',
    cardCl: '0',
  },
  '4000000000009995': {
    outcome: 'limit-exceeded',
    cardCode: '12',
    cardName: 'NH농협',
    acquCode: '12',
    acquName: 'NH농협카드',
    cardCl: '0',
  },
};

/**
 * Failure answers of the sandbox key-in endpoint: ResultCode and the issuer-style ResultMsg.
 * The real gateway's list of failure codes is not published (spec, Errors 6); these are the
 * sandbox's own, except 1621 (duplicate request) and 1620 (card-company timeout) from
 * gateway-facts.md.
 */
export const KEYIN_DECLINES = {
  expired: { code: '3051', message: '유효기간이 만료된 카드입니다' },
  'lost-stolen': { code: '3052', message: '분실 도난 카드입니다' },
  suspended: { code: '3053', message: '거래정지 카드입니다' },
  'limit-exceeded': { code: '3054', message: '한도가 초과되었습니다' },
  unknownCard: { code: '3011', message: '카드번호 오류입니다' },
  ...SANDBOX_REQUEST_CODES,
  duplicateTid: { code: '1621', message: '중복된 거래 요청입니다' },
  /** A Moid an approved transaction of the merchant already holds, by any service (gateway-facts: 1681 / A127). */
  duplicateMoid: { code: '1681', message: '중복된 주문번호입니다' },
} as const;
