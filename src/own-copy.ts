/**
 * A copy of `text` that shares no memory with the string it was cut from, the same code units.
 *
 * V8 keeps a substring of 13 or more characters as a view of its parent: a Moid that a body
 * parser cut from a key-in form keeps the whole form (card number, birth date, password digits)
 * alive for as long as the Moid is kept, and a TxTid cut from an auth return keeps its AuthToken.
 * What outlives the request (a ledger record, 24 hours or more in memoryStore) keeps its own copy.
 */
export function ownCopy(text: string): string {
  return Buffer.from(text, 'utf16le').toString('utf16le');
}
