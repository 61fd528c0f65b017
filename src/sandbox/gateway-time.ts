import { parseKstTimestamp } from '../wire/kst.js';

/**
 * How far a client's KST timestamp (EdiDate, trDtm, a key-in TID's time part) may stand from
 * the sandbox's clock. The documents publish no tolerance; the sandbox is strict and allows
 * ten minutes either way (client clocks drift, requests queue), which still refuses a time
 * written in UTC or another zone (nine hours or more off KST). docs/sandbox.md says so.
 */
export const GATEWAY_TIME_TOLERANCE_MS = 10 * 60 * 1000;

/** Why a client timestamp was refused: not a KST calendar time, or too far from the clock. */
export type GatewayTimeProblem = 'format' | 'skew';

/**
 * Checks a client timestamp (8, 12 or 14 digits, KST) against the sandbox clock.
 * Returns undefined when it is acceptable, otherwise what is wrong with it.
 */
export function checkGatewayTime(
  text: string,
  now: Date,
  toleranceMs = GATEWAY_TIME_TOLERANCE_MS,
): GatewayTimeProblem | undefined {
  if (text.length !== 14 && text.length !== 12) return 'format';
  const at = parseKstTimestamp(text);
  if (!at) return 'format';
  return Math.abs(at.getTime() - now.getTime()) > toleranceMs ? 'skew' : undefined;
}
