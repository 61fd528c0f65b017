import { decodeForm, type FormFields } from '../wire/form-codec.js';
import type { SandboxRequest } from './types.js';

/** A field of a decoded form, '' when absent. */
export const field = (f: FormFields, key: string): string => (Object.hasOwn(f, key) ? f[key]! : '');

/** The request read as the EUC-KR form every key-in, billing and receipt call is; undefined when it is not one. */
export function readForm(req: SandboxRequest): FormFields | undefined {
  try {
    return decodeForm(req.body, 'euc-kr');
  } catch {
    return undefined;
  }
}
