import type { ClientContext } from '../context.js';
import { type OperationKind, runOperation } from '../pipeline/index.js';
import { hookOption } from '../validation/hook-option.js';
import { keyinCall } from './operation.js';
import type { KeyinClient, KeyinInput, KeyinResult } from './types.js';
import { validateKeyinInput } from './validate.js';

/**
 * Creates the key-in client (interface B). Each call is validated, then run as one ledger
 * operation per Moid (key `keyin:${mid}:${moid}`): charged at most once, its unknown outcome
 * reversed, its onApproved run by the pipeline.
 */
export function createKeyinClient(ctx: ClientContext, kind: OperationKind<KeyinResult>): KeyinClient {
  return {
    keyin(input: KeyinInput): Promise<KeyinResult> {
      try {
        const n = validateKeyinInput(input, ctx.config.clock());
        const hook = hookOption('keyin', input);
        return runOperation(ctx, keyinCall(ctx, kind, n, hook as Parameters<typeof keyinCall>[3]));
      } catch (err) {
        return Promise.reject(err);
      }
    },
  };
}
