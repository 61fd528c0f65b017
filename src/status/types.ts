/**
 * What the gateway's status inquiry reports about a TID. Its answer carries no signature and no
 * amount, and a partial cancel does not show: treat it as advice, not proof (lifecycle-facts §4).
 */
export interface TransactionStatus {
  /**
   * Status 0 approved, 1 cancelled, 9 no approved transaction: a virtual account issued and not
   * paid yet is 9 too (lifecycle-facts §4), as the sandbox answers.
   */
  status: 'approved' | 'cancelled' | 'not-found';
  tid: string;
  /** The approval number (AuthCode), when the gateway gives one. */
  authCode: string | undefined;
  /** When it was approved (AuthDate, KST), when the gateway gives it. */
  authDate: Date | undefined;
  /** ResultMsg of the inquiry, decoded. */
  message: string;
  /** Every field of the answer, verbatim. */
  raw: Readonly<Record<string, string>>;
}
