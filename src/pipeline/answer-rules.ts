import { parseAmount } from '../wire/amount.js';
import type { Charset } from '../wire/charset.js';
import { hexEquals } from '../wire/hash.js';
import { type EdiType, type GatewayFields, ownField } from '../wire/response-body.js';
import { readAnswerFields, readResultCode, resultCodeProblem, withMerchantKeyHint } from './answer.js';

/**
 * What one operation's answer means, as it declares it (its answer table): the codes, what a
 * success must echo, and the Signature rule. {@link readAnswer} reads every operation's answer
 * by it, so strictness is decided once: an answer read by the CharSet and EdiType asked for, a
 * field named twice unreadable, a ResultCode counted only when exactly a documented code, the
 * Signature checked before a success means anything, and what it echoes checked against what
 * was sent.
 */
export interface AnswerTable {
  charset: Charset;
  ediType: EdiType;
  /** Codes meaning the operation did what it asked. */
  success: ReadonlySet<string>;
  /** Codes meaning this request or token is not valid for the TID: nobody's order; nothing happened. */
  invalid?: ReadonlySet<string>;
  /**
   * Codes meaning the order number was charged before (1681 / A127): this request charged
   * nothing, and an earlier charge of the Moid stands; never a decline of the order.
   */
  chargedBefore?: ReadonlySet<string>;
  /** Codes meaning "retry later": nothing happened. */
  retry?: ReadonlySet<string>;
  /** Codes meaning the TID was processed before (an approval's duplicate): settled by a recovery step. */
  processed?: ReadonlySet<string>;
  /** Codes that can be read two ways here (another method's success, a duplicate request): unknown. */
  ambiguous?: ReadonlySet<string>;
  /**
   * The Signature a success must carry, computed over the answer's own strings; undefined when
   * the operation's answer is unsigned (key-in, billing, receipts: none is documented).
   */
  signature?: (fields: GatewayFields) => string;
  /** What a success must name exactly (a missing field counts as another value). */
  mustEcho: Readonly<Record<string, string>>;
  /** What an answer may omit but must not name otherwise (a success or a refusal). */
  mayEcho?: Readonly<Record<string, string>>;
  /** The field that carries the amount of a success, and the amount sent (`optional`: it may be left out). */
  amount?: { field: string; value: number; optional?: boolean };
  /** One more check of a success of this operation's own: a reason makes the outcome unknown. */
  check?(fields: GatewayFields): string | undefined;
  /** Fields a success must carry non-empty (a receipt's AuthCode). */
  required?: readonly string[];
  /**
   * A refusal counts as this order's only when it names the order (an approval: the auth
   * return's Moid is unsigned, so a refusal naming no order, or another, is nobody's).
   */
  refusalMustName?: { field: string; value: string };
}

/** How an answer reads under its {@link AnswerTable}. Reasons never quote a field value. */
export type Reading =
  | { kind: 'success'; fields: GatewayFields; code: string }
  | { kind: 'refused'; fields: GatewayFields; code: string; message: string }
  | { kind: 'refused-elsewhere'; code: string; message: string }
  | { kind: 'invalid'; code: string; message: string }
  | { kind: 'charged-before'; code: string; message: string }
  | { kind: 'retry'; code: string; message: string }
  | { kind: 'processed'; fields: GatewayFields; code: string }
  | { kind: 'unknown'; reason: string; code?: string; unverified?: 'answer' | 'amount' };

/** Reads an answer's bytes by `table`; never throws. */
export function readAnswer(body: Uint8Array, table: AnswerTable): Reading {
  const parsed = readAnswerFields(body, table.charset, table.ediType, table.mustEcho);
  if (!parsed.ok) return { kind: 'unknown', reason: parsed.reason };
  const fields = parsed.raw;
  const reading = readResultCode(fields);
  if (reading.kind !== 'code') return { kind: 'unknown', reason: resultCodeProblem(reading) };
  const { code } = reading;
  const message = ownField(fields, 'ResultMsg') ?? '';
  const names = (field: string, value: string): boolean => ownField(fields, field) === value;
  const namesOther = (field: string, value: string): boolean => {
    const got = ownField(fields, field);
    return got !== undefined && got !== '' && got !== value;
  };
  if (table.ambiguous?.has(code))
    return { kind: 'unknown', reason: `the answer's code ${code} can be read two ways here`, code };
  // Codes that say nothing happened for this request are the gateway's word whatever else the
  // answer echoes: it may echo the TID's own PayMethod where the buyer's unsigned form claimed
  // another, and reading that as unknown would reverse a payment this request never made.
  if (!table.success.has(code)) {
    if (table.retry?.has(code)) return { kind: 'retry', code, message };
    if (table.processed?.has(code)) return { kind: 'processed', fields, code };
    if (table.invalid?.has(code)) return { kind: 'invalid', code, message: withMerchantKeyHint(code, message) };
    // The order it names is the gateway's word only when the answer names it (an approval's
    // Moid is the buyer's unsigned text otherwise): one it does not name is nobody's refusal.
    if (table.chargedBefore?.has(code)) {
      if (table.refusalMustName && !names(table.refusalMustName.field, table.refusalMustName.value))
        return { kind: 'refused-elsewhere', code, message };
      return { kind: 'charged-before', code, message };
    }
  }
  if (table.mayEcho) {
    for (const field of Object.keys(table.mayEcho)) {
      if (namesOther(field, table.mayEcho[field]!))
        return { kind: 'unknown', reason: `the answer (${code}) names another ${field}`, code };
    }
  }
  if (table.success.has(code)) {
    if (table.signature && !hexEquals(table.signature(fields), ownField(fields, 'Signature') ?? '')) {
      return {
        kind: 'unknown',
        reason: `the answer (${code}) has a Signature that does not verify`,
        code,
        unverified: 'answer',
      };
    }
    for (const field of Object.keys(table.mustEcho)) {
      if (!names(field, table.mustEcho[field]!))
        return { kind: 'unknown', reason: `the answer (${code}) is for another ${field}`, code, unverified: 'answer' };
    }
    const amountText = table.amount ? ownField(fields, table.amount.field) : undefined;
    if (
      table.amount &&
      !(table.amount.optional && !amountText) &&
      parseAmount(amountText ?? '') !== table.amount.value
    ) {
      return {
        kind: 'unknown',
        reason: `the answer (${code}) reports another ${table.amount.field} than was sent`,
        code,
        unverified: 'amount',
      };
    }
    const missing = table.required?.find((field) => !ownField(fields, field));
    if (missing) return { kind: 'unknown', reason: `the answer (${code}) has no ${missing}`, code };
    const problem = table.check?.(fields);
    if (problem) return { kind: 'unknown', reason: `the answer (${code}) ${problem}`, code };
    return { kind: 'success', fields, code };
  }
  // A refusal may come without a TID (refused before one was booked), never with another one.
  if (table.mustEcho.TID !== undefined && namesOther('TID', table.mustEcho.TID))
    return { kind: 'unknown', reason: `the refusal (${code}) names another TID`, code };
  if (table.refusalMustName && !names(table.refusalMustName.field, table.refusalMustName.value)) {
    return { kind: 'refused-elsewhere', code, message };
  }
  return { kind: 'refused', fields, code, message: withMerchantKeyHint(code, message) };
}
