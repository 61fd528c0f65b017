import type { SandboxModule } from '../types.js';
import { billingCharge } from './charge.js';
import { billingRegister } from './register.js';
import { billingRemove } from './remove.js';

export { BILLING_CODES } from './codes.js';
export { billingState, type SandboxBillingKey } from './state.js';

/** Recurring billing of the sandbox: registration, charge and removal (docs/spec/billing-facts.md §1). */
export const billingModule: SandboxModule = {
  name: 'billing',
  routes: {
    'POST /webapi/billing/billing_regist.jsp': billingRegister,
    'POST /webapi/billing/billing_approve.jsp': billingCharge,
    'POST /webapi/billing/billkey_remove.jsp': billingRemove,
  },
};
