import type { ClientContext } from '../context.js';
import { gatewayEndpoint } from '../gateway-endpoint.js';
import { chargerHook, type OperationKind, refuseOwnHook, runOwnTidOperation } from '../pipeline/index.js';
import { hookOption } from '../validation/hook-option.js';
import { BILLING_REGISTER_PATH, BILLING_REMOVE_PATH } from '../wire/billing-fields.js';
import { billingChargeCall } from './charge-operation.js';
import { createRegistration } from './register.js';
import {
  BILLING_CHARGER_INPUT_KEYS,
  type ApprovedBillingCharge,
  type BillingChargeInput,
  type BillingChargeResult,
  type BillingChargerOptions,
  type BillingClient,
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
      const hook = chargerHook<ApprovedBillingCharge>(ctx, 'billing.charge', 'billing.charger', options);
      return (input) => {
        try {
          refuseOwnHook('billing charger', input);
          const n = validateCharge(input, 'billing.charger()', BILLING_CHARGER_INPUT_KEYS);
          return runOwnTidOperation(
            ctx,
            billingChargeCall(ctx, chargeKind, n, hook as Parameters<typeof billingChargeCall>[3]),
          );
        } catch (err) {
          return Promise.reject(err);
        }
      };
    },
  };
}
