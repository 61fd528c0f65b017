/**
 * Mocha root hook plugin (loaded from .mocharc.json "require"): after the whole run, scans
 * every log line, error message, stack and serialized error that any captureLogger() of any
 * test file saw (test/helpers/capture.ts) and fails the run if a merchant key, a test card
 * number, a card expiry, card-password digits or a birth date appears in it.
 */
import { SANDBOX_TEST_CARDS, TEST_MERCHANTS } from '../../src/sandbox/index.js';
import { kstParts } from '../../src/wire/kst.js';
import { allCapturedLines } from '../helpers/capture.js';

/** Merchant keys of the test merchants (plus the strict key-in merchant of test/keyin.test.ts). */
export const MERCHANT_KEYS = [...TEST_MERCHANTS.map((m) => m.merchantKey), 'StrictKeyinMerchantKey0123456789abcdef=='];
/** Card numbers the tests send: the sandbox's cards and the invalid variants tests use. */
export const CARD_NUMBERS = [
  ...Object.keys(SANDBOX_TEST_CARDS),
  '4111111111111112',
  '4111111111111113',
  '5555555555554445',
  '3714496353984312',
  '1234567890123',
];
/** Expiries (YYMM) the tests send: fixed ones and the "three years ahead" one the key-in tests compute. */
export const EXPIRIES = (() => {
  const k = kstParts(new Date());
  return ['2912', `${String((k.year + 3) % 100).padStart(2, '0')}07`];
})();
/** Birth dates / business numbers (BuyerAuthNum) the tests send. */
export const BIRTH_DATES = ['800101', '860719', '8607190', '8607199', '1234567890'];
/** Card-password digits (password2) the tests send; searched only next to a password-like name. */
export const PASSWORD_DIGITS = ['12', '97', '978', '739'];

/** Secrets found in `text`, each with a short context (the secret itself masked). */
export function findSecrets(text: string): string[] {
  const found: string[] = [];
  const note = (what: string, at: number, len: number): void => {
    found.push(`${what}: …${text.slice(Math.max(0, at - 40), at)}<${what}>${text.slice(at + len, at + len + 40)}…`);
  };
  for (const key of MERCHANT_KEYS) {
    for (const variant of [key, encodeURIComponent(key), JSON.stringify(key).slice(1, -1)]) {
      const at = text.indexOf(variant);
      if (at !== -1) note('merchant key', at, variant.length);
    }
  }
  for (const number of CARD_NUMBERS) {
    const re = new RegExp(`(?<!\\d)${number}(?!\\d)`, 'g');
    for (const m of text.matchAll(re)) note('card number', m.index!, number.length);
  }
  // Short values are searched as whole tokens once long digit runs (TIDs, timestamps, auth
  // codes) and durations are out of the way, as test/keyin.test.ts does.
  const short = text.replace(/"durationMs":\d+/g, '"durationMs":#').replace(/\d{11,}/g, (m) => '#'.repeat(m.length));
  for (const [what, values] of [
    ['card expiry', EXPIRIES],
    ['birth date', BIRTH_DATES],
  ] as const) {
    for (const v of values) {
      for (const m of short.matchAll(new RegExp(`(?<![\\d.:-])${v}(?![\\d.:-])`, 'g'))) note(what, m.index!, v.length);
    }
  }
  for (const m of short.matchAll(/(password2?|CardPwd|pwd)["'=:\s]{1,4}(\d{2,3})(?!\d)/gi)) {
    if (PASSWORD_DIGITS.includes(m[2]!)) note('card password digits', m.index!, m[0].length);
  }
  for (const m of text.matchAll(
    /CardNo=\d|CardExpire=\d|CardPwd=\d|BuyerAuthNum=\d|ExpYear=\d|IDNo=\d|CardPw=\d|EncData=[0-9A-Fa-f]{8}/g,
  ))
    note('card field', m.index!, m[0].length);
  // A billing key charges the card: only its masked form (BIKY****…0012) may appear.
  for (const m of text.matchAll(/BIKY[A-Za-z0-9]{26}/g)) note('billing key', m.index!, m[0].length);
  return found;
}

export const mochaHooks = {
  afterAll(this: { timeout?: (ms: number) => void }) {
    const lines = allCapturedLines();
    const found = findSecrets(lines.join('\n'));
    if (found.length > 0) {
      throw new Error(
        `secret guard: ${found.length} secret(s) in captured logs and errors of this run:\n${found.slice(0, 20).join('\n')}`,
      );
    }
  },
};
