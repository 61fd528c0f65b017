/**
 * Refusals the sandbox's key-in, billing and receipt endpoints share: a request-level problem
 * (merchant, TID, field table, EncData, SignData, contract's auth fields) or an issuer timeout
 * means the same on each of them, so each answers it with the same ResultCode and message.
 * The real gateway publishes none of these but 1620 (card-company timeout, gateway-facts.md).
 */
export const SANDBOX_REQUEST_CODES = {
  authNumRequired: { code: '3061', message: '생년월일 또는 사업자번호를 입력하세요' },
  passwordRequired: { code: '3062', message: '카드 비밀번호 앞 2자리를 입력하세요' },
  unknownMerchant: { code: '3091', message: '등록되지 않은 가맹점입니다' },
  badTid: { code: '3092', message: 'TID 형식이 올바르지 않습니다' },
  badField: { code: '3093', message: '요청 전문 오류입니다' },
  badEncData: { code: '3094', message: '카드정보 복호화에 실패하였습니다' },
  badSignature: { code: '1641', message: '위변조 검증에 실패하였습니다' },
  issuerTimeout: { code: '1620', message: '카드사 응답 지연입니다' },
} as const;
