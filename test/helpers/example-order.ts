import { expect } from 'chai';
import type request from 'supertest';
import type { Sandbox } from '../../src/sandbox/index.js';

/** The example shop's buyer form fields of an order (the product is 23 000 won kimchi). */
export interface KimchiBuyer {
  buyerName: string;
  buyerEmail?: string;
  buyerTel?: string;
}

/**
 * `buyer` (a supertest agent on the example shop) orders kimchi, pays it in the sandbox's
 * window by `method`, and comes back to the shop's return route (303). Returns the order's Moid,
 * its checkout link and the result link the return redirected to.
 */
export async function payKimchi(
  sandbox: Sandbox,
  buyer: ReturnType<typeof request.agent>,
  method: 'CARD' | 'VBANK',
  fields: KimchiBuyer,
): Promise<{ moid: string; checkoutLink: string; resultLink: string }> {
  const post = await buyer
    .post('/checkout')
    .type('form')
    .send({ productId: 'kimchi', ...fields });
  const moid = /^\/checkout\/(\w+)\?t=/.exec(post.headers.location!)![1]!;
  const auth = await sandbox.authenticate({ moid, amount: 23_000, method });
  const ret = await buyer.post('/pay/return').set('content-type', auth.contentType).send(auth.body.toString('latin1'));
  expect(ret.status, ret.text).to.equal(303);
  return { moid, checkoutLink: post.headers.location!, resultLink: ret.headers.location! };
}
