import type { SandboxModule } from '../types.js';
import { cancelProcess } from './net-cancel.js';
import { payProcess } from './pay-process.js';
import { confirmWindow, getWindow, postWindow } from './window.js';
import { PGWEB_SCRIPT_PATH, pgwebScript } from './pgweb-script.js';

export { authenticate, AUTH_CANCELLED_CODE, AUTH_CANCELLED_MSG } from './auth-return.js';
export type { AuthReturn, AuthenticateOptions, CashReceiptChoice } from './auth-return.js';
export { APPROVAL_CODES } from './pay-process.js';
export { NET_CANCEL_CODES } from './net-cancel.js';
export { AUTH_TOKEN_TTL_MS, NET_CANCEL_WINDOW_MS } from './rules.js';

/**
 * Interface A of the sandbox: the payment window (GET/POST /window, POST /window/confirm, and
 * the vendor's window script GET /v3/common/js/nicepay-pgweb.js),
 * approval (POST /webapi/pay_process.jsp) and net cancel (POST /webapi/cancel_process.jsp).
 */
export const approvalModule: SandboxModule = {
  name: 'approval',
  routes: {
    'GET /window': getWindow,
    'POST /window': postWindow,
    'POST /window/confirm': confirmWindow,
    'POST /webapi/pay_process.jsp': payProcess,
    'POST /webapi/cancel_process.jsp': cancelProcess,
    [`GET ${PGWEB_SCRIPT_PATH}`]: pgwebScript,
  },
};
