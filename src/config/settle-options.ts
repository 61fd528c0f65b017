import { NicepayConfigError } from '../errors/index.js';
import { isObject } from '../util/is-object.js';
import { positive } from './option-checks.js';
import { refuseUnknown } from '../validation/known-keys.js';
import { knownKeys } from '../validation/known-keys.js';

/** Options of the in-process settler (`createNicepay({ settle })`). */
export interface SettleOptions {
  /**
   * How often the settler runs a pass, in ms (its timer never keeps the process alive); `false`
   * runs none in this process, keeping the other options for `settle()` and `unsettled()`.
   * @default 60000
   */
  intervalMs?: number | false;
  /** How long a record may stay open before it needs attention (error log, diagnostics). @default 86400000 (24 h) */
  attentionAfterMs?: number;
  /** Most records one pass looks at. @default 100 */
  batch?: number;
  /**
   * The merchant admin login reconciliation is asked with (interface D), which settles a cash
   * receipt whose answer was lost. Without it such a receipt stays unsettled and needs attention.
   */
  reconciliation?: { usrId: string; idCl?: '2' | '3' | '4'; searchID?: string };
}

/** {@link SettleOptions} with the defaults filled in; `intervalMs` false when no settler runs. */
export interface ResolvedSettleOptions {
  intervalMs: number | false;
  attentionAfterMs: number;
  batch: number;
  reconciliation: { usrId: string; idCl: '2' | '3' | '4'; searchID: string } | undefined;
}

const SETTLE_OPTION_NAMES = knownKeys<SettleOptions>({
  intervalMs: true,
  attentionAfterMs: true,
  batch: true,
  reconciliation: true,
});
const RECONCILIATION_OPTION_NAMES = knownKeys<NonNullable<SettleOptions['reconciliation']>>({
  usrId: true,
  idCl: true,
  searchID: true,
});

/** Checks `createNicepay({ settle })` and fills its defaults; `false` runs no settler. */
export function resolveSettle(options: SettleOptions | false | undefined, mid: string): ResolvedSettleOptions {
  if (options === false)
    return { intervalMs: false, attentionAfterMs: 86_400_000, batch: 100, reconciliation: undefined };
  if (options !== undefined && !isObject(options))
    throw new NicepayConfigError('settle', 'an object, or false for no settler in this process');
  if (options !== undefined) refuseUnknown(options, SETTLE_OPTION_NAMES, 'settle.');
  const given: SettleOptions = options ?? {};
  const intervalMs = given.intervalMs === false ? false : positive(given.intervalMs ?? 60_000, 'settle.intervalMs');
  const attentionAfterMs = positive(given.attentionAfterMs ?? 86_400_000, 'settle.attentionAfterMs');
  const batch: unknown = given.batch ?? 100;
  if (typeof batch !== 'number' || !Number.isSafeInteger(batch) || batch <= 0)
    throw new NicepayConfigError('settle.batch', 'a positive integer');
  const login = given.reconciliation;
  if (login === undefined) return { intervalMs, attentionAfterMs, batch, reconciliation: undefined };
  if (typeof login !== 'object' || login === null || typeof login.usrId !== 'string' || login.usrId === '')
    throw new NicepayConfigError(
      'settle.reconciliation',
      'an object { usrId, idCl?, searchID? } with the merchant admin login id',
    );
  refuseUnknown(login, RECONCILIATION_OPTION_NAMES, 'settle.reconciliation.');
  const idCl = login.idCl ?? '2';
  if (idCl !== '2' && idCl !== '3' && idCl !== '4')
    throw new NicepayConfigError('settle.reconciliation.idCl', "'2' (MID), '3' (GID) or '4' (AID)");
  if (login.searchID !== undefined && (typeof login.searchID !== 'string' || login.searchID === ''))
    throw new NicepayConfigError('settle.reconciliation.searchID', 'the MID, GID or AID to query (default: this MID)');
  return {
    intervalMs,
    attentionAfterMs,
    batch,
    reconciliation: { usrId: login.usrId, idCl, searchID: login.searchID ?? mid },
  };
}
