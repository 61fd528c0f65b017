import { encryptEncData } from '../wire/enc-data.js';
import { checkFields } from '../wire/field-sizes.js';
import { encodeForm } from '../wire/form-codec.js';
import { KEYIN_REQUEST_FIELDS, keyinEncPlaintext } from '../wire/keyin-fields.js';
import { keyinSignData } from '../wire/signatures.js';
import { fieldInvalid } from '../validation/input-text.js';
import type { NormalizedKeyin } from './validate.js';
import { refuseKvUnsafe } from '../pipeline/kv-text.js';

/** Which KeyinInput path each form field comes from (so errors name what the caller passed). */
const INPUT_NAMES: Readonly<Record<string, string>> = {
  Moid: 'moid',
  Amt: 'amount',
  GoodsName: 'goodsName',
  CardQuota: 'quota',
  CardInterest: 'interestFree',
  BuyerEmail: 'buyer.email',
  BuyerTel: 'buyer.tel',
  BuyerName: 'buyer.name',
  MallReserved: 'mallReserved',
  CharSet: 'charset',
  EdiType: 'ediType',
};

/** The shop's text a KV answer may echo, by wire name and KeyinInput path. */
const KV_ECHOED: Readonly<Record<string, string>> = {
  GoodsName: 'goodsName',
  MallReserved: 'mallReserved',
  BuyerName: 'buyer.name',
  BuyerEmail: 'buyer.email',
  BuyerTel: 'buyer.tel',
};

/** The signed form of one key-in, ready to send. */
export interface KeyinRequest {
  tid: string;
  ediDate: string;
  /** Amt as sent (plain digits) and signed. */
  amt: string;
  /** The form body, EUC-KR. */
  body: Buffer;
}

/**
 * Builds the key-in form (gateway-interface.md, B): EncData from the card data, SignData over
 * MID + Amt + EdiDate + Moid, every field checked against the B table in EUC-KR bytes.
 * Pure: the TID and EdiDate are the caller's.
 */
export function buildKeyinRequest(
  n: NormalizedKeyin,
  mid: string,
  merchantKey: string,
  tid: string,
  ediDate: string,
): KeyinRequest {
  const amt = String(n.amount);
  const encData = encryptEncData(
    keyinEncPlaintext({ number: n.cardNumber, expiry: n.expiry, buyerAuthNum: n.buyerAuthNum, password2: n.password2 }),
    merchantKey,
  );
  const fields: Record<string, string | undefined> = {
    TID: tid,
    MID: mid,
    EdiDate: ediDate,
    Moid: n.moid,
    Amt: amt,
    GoodsName: n.goodsName,
    EncData: encData,
    CardInterest: n.interest,
    CardQuota: n.quota,
    SignData: keyinSignData(mid, amt, ediDate, n.moid, merchantKey),
    BuyerEmail: n.buyerEmail,
    BuyerTel: n.buyerTel,
    BuyerName: n.buyerName,
    CharSet: n.charset,
    EdiType: n.ediType,
    MallReserved: n.mallReserved,
  };
  const problem = checkFields(KEYIN_REQUEST_FIELDS, fields, 'euc-kr');
  if (problem) {
    const name = INPUT_NAMES[problem.field];
    // Fields the caller does not supply (TID, EncData ...) breaking a rule is our bug, not bad input.
    if (!name) throw new Error(`key-in form field ${problem.field} broke rule ${problem.rule}`);
    throw fieldInvalid(name, `breaks the gateway's ${problem.field} rule: ${problem.message}`);
  }
  // The KV answer echoes the shop's text unescaped (gateway-interface.md, B result).
  refuseKvUnsafe('key-in', n.ediType, fields, KV_ECHOED);
  return { tid, ediDate, amt, body: encodeForm(fields, 'euc-kr') };
}
