import type { FormFields } from '../../wire/form-codec.js';
import { checkFields, type FieldTable } from '../../wire/field-sizes.js';
import { MID_PATTERN } from '../../wire/keyin-fields.js';
import { checkGatewayTime } from '../gateway-time.js';
import { field } from '../form-fields.js';
import type { SandboxMerchant, SandboxState } from '../types.js';
import { BILLING_CODES, type BillingCode } from './codes.js';

/** A call that passed the checks every billing and receipt request shares. */
export type Checked = { merchant: Required<SandboxMerchant>; now: Date } | { refusal: BillingCode };

/**
 * The shared checks, in the order the key-in endpoint makes them: the MID's shape, the
 * merchant, the field table in EUC-KR bytes, EdiDate in KST within the tolerance. SignData is
 * the caller's (each call has its own rule). A refusal names the field, never its value.
 */
export function checkCommon(form: FormFields | undefined, table: FieldTable, state: SandboxState): Checked {
  if (!form) return { refusal: BILLING_CODES.badField };
  const mid = field(form, 'MID');
  if (!MID_PATTERN.test(mid)) return { refusal: badField('MID') };
  const merchant = state.merchants.get(mid);
  if (!merchant) return { refusal: BILLING_CODES.unknownMerchant };
  const problem = checkFields(table, form, 'euc-kr');
  if (problem) return { refusal: badField(problem.field) };
  if (field(form, 'EdiType') === 'KV' && /[&=]/.test(field(form, 'MallReserved')))
    return { refusal: badField('MallReserved') };
  const now = state.clock.now();
  if (checkGatewayTime(field(form, 'EdiDate'), now)) return { refusal: badField('EdiDate') };
  return { merchant, now };
}

/** The badField refusal naming the field. */
export function badField(name: string): BillingCode {
  return { code: BILLING_CODES.badField.code, message: `${BILLING_CODES.badField.message} (${name})` };
}
