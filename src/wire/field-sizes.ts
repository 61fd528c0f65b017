import { type Charset, byteLength } from './charset.js';
import { inheritsNothing } from './form-codec.js';

/** One field of a request table: its maximum size in bytes of the wire encoding. */
export interface FieldSpec {
  readonly max: number;
  readonly required: boolean;
  /** Optional shape the value must match (digits, a code list ...). */
  readonly pattern?: RegExp;
}

/** A table of fields, as in the spec. */
export type FieldTable = Readonly<Record<string, FieldSpec>>;

const req = (max: number, pattern?: RegExp): FieldSpec => ({ max, required: true, ...(pattern ? { pattern } : {}) });
const opt = (max: number, pattern?: RegExp): FieldSpec => ({ max, required: false, ...(pattern ? { pattern } : {}) });

const DIGITS = /^\d+$/;

/** Approval request (gateway-interface.md, A. Approval). Net cancel adds NetCancel. */
export const APPROVAL_REQUEST_FIELDS: FieldTable = {
  TID: req(30),
  AuthToken: req(40),
  MID: req(10),
  Amt: req(12, DIGITS),
  EdiDate: req(14, /^\d{14}$/),
  SignData: req(256),
  CharSet: opt(10),
  EdiType: opt(10),
  MallReserved: opt(500),
  NetCancel: opt(1, /^1$/),
};

/**
 * The authentication return the payment window posts (gateway-facts.md). Sizes not given
 * there are taken from the matching approval fields (TxTid = TID 30, Amt 12, Moid 64) or
 * bounded generously (URLs, messages).
 */
export const AUTH_RETURN_FIELDS: FieldTable = {
  AuthResultCode: req(4),
  AuthResultMsg: opt(500),
  AuthToken: opt(40),
  PayMethod: opt(10),
  MID: req(10),
  Moid: req(64),
  Amt: opt(12, DIGITS),
  ReqReserved: opt(500),
  TxTid: opt(30),
  NextAppURL: opt(500),
  NetCancelURL: opt(500),
  Signature: opt(500),
};

/** Fields required once AuthResultCode is 0000 (everything approval needs). */
export const AUTH_SUCCESS_REQUIRED = ['AuthToken', 'Amt', 'TxTid', 'NextAppURL', 'NetCancelURL', 'Signature'] as const;

/** A rule a field broke; says which field and which rule, never the value. */
export interface FieldProblem {
  field: string;
  rule: 'required' | 'too-long' | 'format';
  message: string;
}

const tableEntries = new WeakMap<FieldTable, ReadonlyArray<readonly [string, FieldSpec]>>();
/** Object.entries of a table, computed once per table (tables are fixed). */
function entriesOf(table: FieldTable): ReadonlyArray<readonly [string, FieldSpec]> {
  let e = tableEntries.get(table);
  if (!e) {
    e = Object.entries(table);
    tableEntries.set(table, e);
  }
  return e;
}

/**
 * Checks values against a table in the wire encoding. Unknown keys are ignored (the caller
 * decides what to send). Returns the first problem, or undefined.
 */
export function checkFields(
  table: FieldTable,
  values: Readonly<Record<string, string | undefined>>,
  charset: Charset,
): FieldProblem | undefined {
  // A decoded form inherits nothing: its fields need no own-property check.
  const own = inheritsNothing(values);
  for (const [field, spec] of entriesOf(table)) {
    const value = own || Object.hasOwn(values, field) ? values[field] : undefined;
    if (value === undefined || value === '') {
      if (spec.required) return { field, rule: 'required', message: `${field} is required` };
      continue;
    }
    // No UTF-16 code unit takes more than 3 bytes in either charset (an astral character is two
    // units and 4 bytes): a value that short cannot be too long, and needs no counting.
    if (value.length * 3 > spec.max) {
      const size = byteLength(value, charset);
      if (size > spec.max) {
        return {
          field,
          rule: 'too-long',
          message: `${field} is ${size} bytes in ${charset}; at most ${spec.max} allowed`,
        };
      }
    }
    if (spec.pattern && !spec.pattern.test(value)) {
      return { field, rule: 'format', message: `${field} does not have the expected format` };
    }
  }
  return undefined;
}
