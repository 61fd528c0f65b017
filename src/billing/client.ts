import { type ClientContext, registerRouteHook } from '../context.js';
import { NicepayConfigError, NicepayRequestError } from '../errors/index.js';
import { isObject } from '../util/is-object.js';
import { gatewayEndpoint } from '../gateway-endpoint.js';
import { type OperationKind, runOwnTidOperation } from '../pipeline/index.js';
import { HOOK_TIMEOUT_MS, hookOption } from '../validation/hook-option.js';
import { BILLING_REGISTER_PATH, BILLING_REMOVE_PATH } from '../wire/billing-fields.js';
import { billingChargeCall } from './charge-operation.js';
import { createRegistration } from './register.js';
import type {
  ApprovedBillingCharge,
  BillingChargeInput,
  BillingChargeResult,
  BillingChargerOptions,
  BillingClient,
} from './types.js';
import { validateCharge } from './validate.js';

/**
 * Creates `nicepay.billing` over a client context: registration and removal are single calls
 * through the pipeline; a charge is one ledger operation per Moid (key `billing:${mid}:${moid}`),
 * charged at most once, its unknown outcome or failed onApproved reversed.
 */
export function createBillingClient(ctx: ClientContext, chargeKind: OperationKind<BillingChargeResult>): BillingClient {
  const { config } = ctx;
  const registration = createRegistration(
    ctx,
    gatewayEndpoint(config.baseUrl, BILLING_REGISTER_PATH),
    gatewayEndpoint(config.baseUrl, BILLING_REMOVE_PATH),
  );
  return {
    register: (input) => registration.register(input),
    remove: (input) => registration.remove(input),
    charge(input: BillingChargeInput): Promise<BillingChargeResult> {
      try {
        const n = validateCharge(input);
        const hook = hookOption('billing.charge', input);
        return runOwnTidOperation(
          ctx,
          billingChargeCall(ctx, chargeKind, n, hook as Parameters<typeof billingChargeCall>[3]),
        );
      } catch (err) {
        return Promise.reject(err);
      }
    },
    charger(options: BillingChargerOptions) {
      const { onApproved, timeoutMs, name } = chargerHook(ctx, options);
      return (input) => {
        try {
          // A hook of the call's own would not be the one settlement runs: refused, not ignored.
          const own = input as Partial<BillingChargeInput>;
          if (isObject(own) && (own.onApproved !== undefined || own.hookTimeoutMs !== undefined))
            throw new NicepayRequestError(
              'NICEPAY_FIELD_INVALID',
              "billing charger: a charge through a charger runs the charger's onApproved; nothing was sent",
              'onApproved',
            );
          const n = validateCharge(input);
          return runOwnTidOperation(ctx, billingChargeCall(ctx, chargeKind, n, { run: onApproved, timeoutMs, name }));
        } catch (err) {
          return Promise.reject(err);
        }
      };
    },
  };
}

/** A charger's options checked, and its hook registered for settlement under its name. */
function chargerHook(
  ctx: ClientContext,
  options: BillingChargerOptions,
): { onApproved: BillingChargerOptions['onApproved']; timeoutMs: number; name: string } {
  if (!isObject(options) || typeof options.onApproved !== 'function')
    throw new NicepayConfigError('billing.charger onApproved', 'a function (result, { signal }) => void');
  // No default: a default by creation order would bind one instance's charges to another's hook.
  if (typeof options.name !== 'string' || options.name === '')
    throw new NicepayConfigError(
      'billing.charger name',
      "the hook's own name, the same in every instance that settles its charges",
    );
  const timeoutMs = options.hookTimeoutMs ?? HOOK_TIMEOUT_MS;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0)
    throw new NicepayConfigError('billing.charger hookTimeoutMs', 'a positive number of ms');
  const { onApproved } = options;
  const name = registerRouteHook(ctx, 'billing.charge', options.name, (r, context) =>
    onApproved(r as ApprovedBillingCharge, context),
  );
  return { onApproved, timeoutMs, name };
}
