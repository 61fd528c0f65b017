// The shop server bench/instructions.ts runs under valgrind: plain JavaScript (no tsx to count),
// the library from ROOT/dist. KIND=ours: checkoutReturn; KIND=floor: drain the body, send the
// next pre-built approval form (FLOOR_FILE) with a bare undici request, answer.
import { readFileSync } from 'node:fs';
import express from 'express';
import { Agent, request } from 'undici';

const app = express();
app.disable('x-powered-by');
app.disable('etag');
if (process.env.KIND === 'floor') {
  const { url, bodies } = JSON.parse(readFileSync(process.env.FLOOR_FILE, 'utf8'));
  const prebuilt = bodies.map((b) => Buffer.from(b, 'latin1'));
  let next = 0;
  const dispatcher = new Agent();
  const drain = (req) =>
    new Promise((resolve, reject) => {
      req.on('data', () => {});
      req.on('end', resolve);
      req.on('error', reject);
    });
  app.post('/return', (req, res) => {
    drain(req)
      .then(async () => {
        const answer = await request(url, {
          method: 'POST',
          body: prebuilt[next++],
          headers: { 'content-type': 'application/x-www-form-urlencoded; charset=euc-kr' },
          dispatcher,
        });
        await answer.body.arrayBuffer();
        res.send('approved');
      })
      .catch((err) => res.status(500).send(String(err)));
  });
} else {
  const { createNicepay } = await import(new URL('dist/index.js', `file://${process.env.ROOT}/`).href);
  const nicepay = createNicepay({
    mid: process.env.MID,
    merchantKey: process.env.KEY,
    baseUrl: process.env.SANDBOX_URL,
  });
  const amount = Number(process.env.AMOUNT);
  // BENCH_ON_APPROVED=1: with an onApproved that does nothing, to count what running a hook costs.
  const onApproved = process.env.BENCH_ON_APPROVED === '1' ? { onApproved: () => {} } : {};
  app.post('/return', nicepay.checkoutReturn({ expectedAmount: () => amount, ...onApproved }), (req, res) => {
    res.send(req.checkout.status);
  });
}
const server = app.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.on('SIGTERM', () => process.exit(0));
