// TypeScript consumer (moduleResolution nodenext): req.checkout narrows by status and method.
import express from 'express';
import { createNicepay, isNicepayError, type CheckoutResult } from 'express-nicepay';
import { createSandbox, type Sandbox } from 'express-nicepay/sandbox';
import { redisStore } from 'express-nicepay/redis';

const sandbox: Sandbox = createSandbox();
const nicepay = createNicepay({ mid: 'nicepay00m', merchantKey: 'k'.repeat(40), baseUrl: 'http://127.0.0.1:1' });
void redisStore;

function describe(r: CheckoutResult): string {
  switch (r.status) {
    case 'approved': {
      const when: Date | undefined = r.payment.approvedAt;
      if (r.payment.method === 'CARD') return `card ${r.payment.card.name} ${r.amount} ${when?.toISOString()}`;
      return `${r.payment.method} ${r.payment.tid}`;
    }
    case 'awaiting-deposit':
      return `deposit to ${r.payment.virtualAccount.accountNumber}`;
    case 'declined':
      return `declined ${r.code}: ${r.message}`;
    case 'auth-failed':
      return `window closed (unverified: ${r.verified}): ${r.buyerPosted.authResultCode}`;
    default: {
      const unreachable: never = r;
      return unreachable;
    }
  }
}

const app = express();
app.post(
  '/pay/return',
  nicepay.checkoutReturn({ expectedAmount: (moid: string) => (moid ? 1004 : undefined) }),
  (req, res, next) => {
    const r: CheckoutResult | undefined = req.checkout;
    if (!r) return next(new Error('checkoutReturn did not run'));
    res.send(describe(r));
  },
);
app.use((err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
  res.status(isNicepayError(err) ? err.status : 500).end();
});
void sandbox;
