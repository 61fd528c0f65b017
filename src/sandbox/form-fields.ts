import { decodeForm, type FormFields } from '../wire/form-codec.js';
import { logGarbled } from './request-log.js';
import type { SandboxRequest } from './types.js';

/** A field of a decoded form, '' when absent. */
export const field = (f: FormFields, key: string): string => (Object.hasOwn(f, key) ? f[key]! : '');

/**
 * The request read as the EUC-KR form every key-in, billing and receipt call is; undefined when
 * it is not one (a malformed escape, a field sent twice). Bytes that are not valid EUC-KR are
 * read as the gateway reads them, garbled, with a line in the sandbox's log (request-log.ts).
 */
export function readForm(req: SandboxRequest): FormFields | undefined {
  const garbled: string[] = [];
  try {
    const form = decodeForm(req.body, 'euc-kr', { garbled: (name) => garbled.push(name) });
    logGarbled(req.path, garbled);
    return form;
  } catch {
    return undefined;
  }
}
