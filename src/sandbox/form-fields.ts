import { mediaType } from '../wire/content-type.js';
import { decodeForm, type FormFields } from '../wire/form-codec.js';
import { logGarbled } from './request-log.js';
import type { SandboxRequest } from './types.js';

/** A field of a decoded form, '' when absent. */
export const field = (f: FormFields, key: string): string => (Object.hasOwn(f, key) ? f[key]! : '');

/**
 * Whether a request may be read as the form the web API takes: its Content-Type is
 * `application/x-www-form-urlencoded`, or it has none (the sandbox's leniency). A body declared
 * as anything else (JSON, text, multipart) is not read as a form even when its bytes look like
 * one: the gateway reads no fields from it, so a client that sends it must fail here too.
 */
export function isFormRequest(req: SandboxRequest): boolean {
  const type = mediaType(req.headers['content-type']);
  return type === '' || type === 'application/x-www-form-urlencoded';
}

/**
 * The request read as the EUC-KR form every key-in, billing and receipt call is; undefined when
 * it is not one (declared another media type, a malformed escape, a field sent twice). Bytes that are not valid EUC-KR are
 * read as the gateway reads them, garbled, with a line in the sandbox's log (request-log.ts).
 */
export function readForm(req: SandboxRequest): FormFields | undefined {
  if (!isFormRequest(req)) return undefined;
  const garbled: string[] = [];
  try {
    const form = decodeForm(req.body, 'euc-kr', { garbled: (name) => garbled.push(name) });
    logGarbled(req.path, garbled);
    return form;
  } catch {
    return undefined;
  }
}
