/**
 * Korean text helpers of the example shop: particles chosen by the final consonant (을/를,
 * 이/가, 은/는, 으로/로) and the back office's message per error.
 * Errors are told apart by their stable `code` (and the schedule `rule`, the data host
 * `resCode`), never by `instanceof` or by the English message.
 */
import { isNicepayError } from '../src/index.js';

/** How the last character is read aloud: does it end in a consonant (받침), and is it ㄹ? */
function ending(word: string): { batchim: boolean; rieul: boolean } {
  const last = word.trim().slice(-1);
  const code = last.charCodeAt(0);
  if (code >= 0xac00 && code <= 0xd7a3) {
    const jong = (code - 0xac00) % 28;
    return { batchim: jong !== 0, rieul: jong === 8 };
  }
  // Digits as read in Sino-Korean: 영 일 이 삼 사 오 육 칠 팔 구.
  const digit = '0123456789'.indexOf(last);
  if (digit >= 0) return { batchim: [0, 1, 3, 6, 7, 8].includes(digit), rieul: [1, 7, 8].includes(digit) };
  // Latin letters as usually read: ending in l, m, n (엘, 엠, 엔) or r (알) has a final consonant.
  const letter = last.toLowerCase();
  if (/[lmnr]/.test(letter)) return { batchim: true, rieul: letter === 'l' || letter === 'r' };
  return { batchim: false, rieul: false };
}

/** A Korean particle pair. */
export type Particle = '을/를' | '이/가' | '은/는' | '으로/로' | '과/와';

/** `word` followed by the right particle: 카드번호를, 유효기간을, seller-42를, 서울로. */
export function withParticle(word: string, particle: Particle): string {
  const { batchim, rieul } = ending(word);
  const [withBatchim, without] = particle.split('/') as [string, string];
  if (particle === '으로/로') return word + (batchim && !rieul ? withBatchim : without);
  return word + (batchim ? withBatchim : without);
}

/** Only the particle that fits `word` (조회일 "x"는): for text quoted or styled apart from it. */
export function particleFor(word: string, particle: Particle): string {
  return withParticle(word, particle).slice(word.length);
}

/**
 * The banks an operator picks from (the Korean interbank 3-digit codes the gateway's bankCd
 * and refund BankCode take), so a code is chosen by name instead of typed from memory.
 */
export const BANKS: ReadonlyArray<readonly [code: string, name: string]> = [
  ['004', 'KB국민은행'],
  ['088', '신한은행'],
  ['020', '우리은행'],
  ['081', '하나은행'],
  ['011', 'NH농협은행'],
  ['003', 'IBK기업은행'],
  ['002', 'KDB산업은행'],
  ['007', '수협은행'],
  ['023', 'SC제일은행'],
  ['027', '한국씨티은행'],
  ['031', '대구은행'],
  ['032', '부산은행'],
  ['034', '광주은행'],
  ['035', '제주은행'],
  ['037', '전북은행'],
  ['039', '경남은행'],
  ['045', '새마을금고'],
  ['048', '신협'],
  ['050', '저축은행'],
  ['071', '우체국'],
  ['089', '케이뱅크'],
  ['090', '카카오뱅크'],
  ['092', '토스뱅크'],
];

/** A bank's name by its code, "KB국민은행 (004)" style when listed (an operator reads names, not codes); the code otherwise. */
export function bankName(code: string): string {
  const name = BANKS.find(([c]) => c === code)?.[1];
  return name ? `${name} (${code})` : code;
}

/**
 * Card companies by the gateway's issuer code, so one company has one name on every page
 * (the window's approval says 국민, key-in says KB국민). Codes not listed keep the gateway's
 * name with 카드 appended.
 */
const CARD_COMPANY: Readonly<Record<string, string>> = {
  '01': 'BC카드',
  '02': 'KB국민카드',
  '04': '삼성카드',
  '06': '신한카드',
  '07': '현대카드',
  '08': '롯데카드',
  '12': 'NH농협카드',
};

/** The card company's one display name: by issuer code, else the gateway's name ending in 카드. */
export function cardCompany(code: string, gatewayName: string): string {
  // CardCode is sent as 2 digits, sometimes zero-padded to its field's 3 or 4.
  const key = code.trim().replace(/^0+(?=\d{2}$)/, '');
  return CARD_COMPANY[key] ?? (gatewayName.endsWith('카드') ? gatewayName : `${gatewayName}카드`);
}

const SCHEDULE_MESSAGE: Readonly<Record<string, string>> = {
  'past-date': '지난 날짜로는 요청할 수 없습니다.',
  'non-business-day': '영업일이 아닌 날짜입니다. 다른 지급일을 선택해 주세요.',
  'request-cutoff': '당일 지급 요청은 오전 10시 30분(한국 시간)까지만 가능합니다. 다음 영업일로 요청해 주세요.',
  'cancel-cutoff': '지급 취소는 지급일 오전 10시 30분(한국 시간)까지만 가능합니다.',
  'registration-blackout':
    '밤 11시부터 새벽 1시(한국 시간)까지는 서브몰을 등록할 수 없습니다. 잠시 후 다시 시도해 주세요.',
  'results-not-ready': '지급 결과는 지급일 오후 4시(한국 시간)부터 조회할 수 있습니다.',
};

/** Data host resCodes (gateway-facts.md, "Payout and reconciliation") in the operator's words. */
const DATA_HOST_MESSAGE: Readonly<Record<string, string>> = {
  '1000': '상점 인증에 실패했습니다. 상점 아이디와 키 설정을 확인해 주세요.',
  '1001': '영업일이 아닌 날짜입니다.',
  '1003': '예금주가 계좌의 실제 예금주와 다릅니다.',
  '1101': '이 상점은 지급대행 서비스가 설정되어 있지 않습니다.',
  '1102': '잔액 정보가 없습니다.',
  '1103': '같은 내용의 지급 요청이 이미 있습니다.',
  '1104': '요청 내역이 없습니다.',
  '1105': '등록되지 않은 서브몰입니다.',
  '1106': '이미 등록된 서브몰 ID입니다. 다른 ID를 입력해 주세요.',
  '1107': '오전 10시 30분(한국 시간) 마감이 지났습니다.',
};

/** Back-office form fields in Korean, for "…을(를) 확인해 주세요" messages. */
export const FIELD_LABEL: Readonly<Record<string, string>> = {
  subId: '서브몰 ID',
  subNm: '상호',
  subCoNo: '사업자등록번호',
  bankCd: '은행 코드',
  accntNo: '계좌번호',
  accntNm: '예금주',
  amount: '금액',
  settlmntDt: '지급일',
  seq: '순번',
  dt: '조회일',
  memo: '메모',
  usrId: '관리자 아이디',
  cardNumber: '카드번호',
  cardExpiry: '유효기간',
  buyerAuthNum: '생년월일',
  cardPassword2: '비밀번호 앞 2자리',
  quota: '할부',
  identity: '발급번호',
  buyerName: '이름',
  buyerEmail: '이메일',
  buyerTel: '휴대폰',
  reason: '취소 사유',
  refundAccount: '환불 계좌',
  'refundAccount.number': '환불 계좌번호',
  'refundAccount.bankCode': '환불 은행 코드',
  'refundAccount.holder': '환불 계좌 예금주',
  remainingAmount: '남은 금액',
  // The card fields as the billing and key-in clients name them (card.expYear: an expired card too).
  'card.number': '카드번호',
  'card.expYear': '유효기간',
  'card.expMonth': '유효기간',
  'card.expiry': '유효기간',
  'card.idNo': '생년월일',
  'card.password2': '비밀번호 앞 2자리',
};

/** Why the gateway refused a cancel (CancelRefusalReason), in the operator's words. */
export const CANCEL_REFUSAL: Readonly<Record<string, string>> = {
  'already-cancelled': '이미 취소된 거래입니다.',
  'not-found': 'NICEPAY에서 거래를 찾을 수 없습니다.',
  'period-passed': '취소 가능 기간이 지났습니다.',
  'amount-too-large': '취소 금액이 남은 금액보다 큽니다.',
  'partial-not-allowed': '이 거래는 부분 취소할 수 없습니다. 전액으로 취소해 주세요.',
  'vbank-not-deposited': '입금 전인 가상계좌는 부분 환불할 수 없습니다.',
  'refund-instead': '이 거래는 취소 대신 환불 계좌로 환불해야 합니다.',
  'balance-mismatch': '남은 금액이 NICEPAY와 일치하지 않습니다. 거래를 조회해 주세요.',
  'duplicate-partial': '같은 부분 취소가 이미 처리되었습니다.',
  'refund-account-required': '입금된 가상계좌는 환불 계좌가 필요합니다.',
  other: 'NICEPAY가 취소를 거절했습니다.',
};

/** "카드번호를 확인해 주세요." for a field name; the value is never part of it. */
export function checkFieldMessage(field: string | undefined): string {
  return `${withParticle((field && FIELD_LABEL[field]) || '입력값', '을/를')} 확인해 주세요.`;
}

/** The operator's message and HTTP status for what the payout / recon client threw, or undefined to rethrow. */
export function operatorError(err: unknown): { message: string; status: number } | undefined {
  if (!isNicepayError(err)) return undefined;
  const e = err as { code: string; rule?: string; resCode?: string; field?: string };
  switch (e.code) {
    case 'NICEPAY_SCHEDULE_VIOLATION':
      return { message: SCHEDULE_MESSAGE[e.rule ?? ''] ?? '지금은 처리할 수 없는 일정입니다.', status: 422 };
    case 'NICEPAY_FIELD_INVALID':
      return { message: checkFieldMessage(e.field), status: 400 };
    case 'NICEPAY_GATEWAY_UNREACHABLE':
      return {
        message: 'NICEPAY 서버에 연결할 수 없습니다. 아무것도 처리되지 않았습니다. 잠시 후 다시 시도해 주세요.',
        status: 502,
      };
    case 'NICEPAY_RETRY_LATER':
      return {
        message:
          'NICEPAY가 지금은 처리할 수 없다고 답했습니다. 아무것도 처리되지 않았습니다. 잠시 후 다시 시도해 주세요.',
        status: 503,
      };
    case 'NICEPAY_CANCEL_EXCEEDS_REMAINING':
      return { message: '취소 금액이 남은 금액보다 큽니다. 보내지 않았습니다.', status: 422 };
    case 'NICEPAY_OUTCOME_UNKNOWN':
      return {
        message:
          'NICEPAY의 응답을 받지 못했습니다. 처리 여부는 결제 정산이 자동으로 확인해 맞춥니다 (결제 정산 페이지). 다시 요청하지 않아도 됩니다.',
        status: 502,
      };
    case 'NICEPAY_DUPLICATE_MISMATCH':
      return { message: '같은 요청이 다른 내용(금액 등)으로 이미 처리되었습니다. 보내지 않았습니다.', status: 409 };
    default:
      if (typeof e.resCode === 'string') {
        const known = DATA_HOST_MESSAGE[e.resCode];
        return {
          message: `${known ?? 'NICEPAY가 요청을 거절했습니다.'} (코드 ${e.resCode})`,
          status: /^1/.test(e.resCode) ? 409 : 502,
        };
      }
      return undefined;
  }
}
