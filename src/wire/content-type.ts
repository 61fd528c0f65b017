/**
 * The parts of a Content-Type header the gateway's forms need: its media type and its charset
 * parameter (quoted or not). Shared by the return route and the sandbox, so both read a
 * header the same way.
 */

/** The Content-Type of every form the shop posts to the gateway: EUC-KR, as the gateway reads it. */
export const EUC_KR_FORM = 'application/x-www-form-urlencoded; charset=euc-kr';

/** The charset parameter of a Content-Type, quoted or not. */
export const CHARSET_PARAM = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i;

/** The media type of a Content-Type, lower-cased, without parameters ('' when absent). */
export function mediaType(contentType: string | undefined): string {
  if (!contentType) return '';
  const semicolon = contentType.indexOf(';');
  return (semicolon === -1 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}

/**
 * The charset label a Content-Type declares, as written, or undefined when it names none. A
 * header that names two charsets declares no one charset: its labels joined by a comma are
 * returned, a label no charset has, so the body is read by neither.
 */
export function charsetParam(contentType: string | undefined): string | undefined {
  if (!contentType || contentType.indexOf(';') === -1) return undefined;
  const labels = [...contentType.matchAll(new RegExp(CHARSET_PARAM.source, 'gi'))].map((m) => m[2]!);
  return labels.length === 0 ? undefined : labels.join(',');
}
