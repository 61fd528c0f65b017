/**
 * Stable reasons for the data host's resCode values. The list is gateway-facts.md "Payout
 * (interface C) and reconciliation (interface D)": codes seen in public merchant code
 * (unofficial; the spec says the list is not shown). Branch on `reason`, not on resMsg.
 */
export const DATA_RES_REASONS: Readonly<Record<string, string>> = {
  '0101': 'bad-format',
  '0102': 'bad-sid',
  '0210': 'missing-value',
  '0260': 'value-too-long',
  '0270': 'bad-value-format',
  '1000': 'merchant-auth-failed',
  '1001': 'non-business-day',
  '1003': 'account-holder-mismatch',
  '1101': 'payout-not-enabled',
  '1102': 'no-balance-data',
  '1103': 'duplicate-request',
  '1104': 'no-request-data',
  '1105': 'unknown-sub-merchant',
  '1106': 'sub-merchant-exists',
  '1107': 'past-cutoff',
};

/** Reason for a code the list above does not hold. */
export const UNLISTED_REASON = 'unlisted-code';

/** The stable reason of a refusing resCode (8xxx and 9xxx are not refusals: parse-response.ts). */
export function reasonOf(resCode: string): string {
  return DATA_RES_REASONS[resCode] ?? UNLISTED_REASON;
}
