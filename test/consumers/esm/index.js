// ESM consumer: a whole card approval against the bundled sandbox, through the packed tarball.
import express from 'express';
import { createNicepay, isNicepayError } from 'express-nicepay';
import { createSandbox, TEST_MERCHANTS } from 'express-nicepay/sandbox';

const [merchant] = TEST_MERCHANTS;
const sandbox = createSandbox();
const { url } = await sandbox.listen(0);
const nicepay = createNicepay({ mid: merchant.mid, merchantKey: merchant.merchantKey, baseUrl: url });

const app = express();
app.post('/pay/return', nicepay.checkoutReturn({ expectedAmount: () => 1004 }), (req, res) => {
  res.json({ status: req.checkout.status, method: req.checkout.payment?.method, amount: req.checkout.amount });
});
app.use((err, _req, res, _next) => res.status(500).json({ error: isNicepayError(err) ? err.code : String(err) }));
const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));

const auth = await sandbox.authenticate({ moid: 'ESM-1', amount: 1004, method: 'CARD' });
const res = await fetch(`http://127.0.0.1:${server.address().port}/pay/return`, {
  method: 'POST',
  headers: { 'content-type': auth.contentType },
  body: auth.body,
});
console.log(JSON.stringify(await res.json()));
server.close();
await nicepay.close();
await sandbox.close();
