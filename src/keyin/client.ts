import type { ClientContext } from '../context.js';
import { chargerHook, type OperationKind, refuseOwnHook, runOwnTidOperation } from '../pipeline/index.js';
import { hookOption } from '../validation/hook-option.js';
import { keyinCall } from './operation.js';
import {
  type ApprovedKeyin,
  KEYIN_CHARGER_INPUT_KEYS,
  type KeyinClient,
  type KeyinInput,
  type KeyinResult,
} from './types.js';
import { validateKeyinInput } from './validate.js';

/**
 * Creates the key-in client (interface B). Each call is validated, then run as one ledger
 * operation per Moid (key `keyin:${mid}:${moid}`): charged at most once, its unknown outcome
 * reversed, its onApproved run by the pipeline. A route's client names the route hook its
 * records carry (`hookName`), which settlement runs again for them.
 */
export function createKeyinClient(
  ctx: ClientContext,
  kind: OperationKind<KeyinResult>,
  hookName?: string,
): KeyinClient {
  return {
    keyin(input: KeyinInput): Promise<KeyinResult> {
      try {
        const n = validateKeyinInput(input, ctx.config.clock());
        const hook = hookOption('keyin', input) as Parameters<typeof keyinCall>[3];
        return runOwnTidOperation(ctx, keyinCall(ctx, kind, n, hook && { ...hook, name: hookName }));
      } catch (err) {
        return Promise.reject(err);
      }
    },
    charger(options) {
      const hook = chargerHook<ApprovedKeyin>(ctx, 'keyin', 'keyinCharger', options);
      return (input) => {
        try {
          refuseOwnHook('keyinCharger', input);
          const n = validateKeyinInput(input, ctx.config.clock(), 'keyinCharger()', KEYIN_CHARGER_INPUT_KEYS);
          return runOwnTidOperation(ctx, keyinCall(ctx, kind, n, hook as Parameters<typeof keyinCall>[3]));
        } catch (err) {
          return Promise.reject(err);
        }
      };
    },
  };
}
