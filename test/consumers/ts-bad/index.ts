// Must not compile: `payment` exists only once `status` is narrowed to a committed result,
// and a card field only once `method` is 'CARD'. An auth failure has no `message`: its posted
// text is the buyer's, under `buyerPosted`, never shown as the gateway's.
import express from 'express';
import { createNicepay } from 'express-nicepay';

const nicepay = createNicepay({ mid: 'nicepay00m', merchantKey: 'k'.repeat(40), baseUrl: 'http://127.0.0.1:1' });
const app = express();
app.post('/pay/return', nicepay.checkoutReturn({ expectedAmount: () => 1004 }), (req, res) => {
  const r = req.checkout!;
  if (r.status === 'declined') res.send(r.payment.tid);
  else if (r.status === 'approved') res.send(r.payment.card.name);
  else if (r.status === 'auth-failed') res.send(r.message);
});
