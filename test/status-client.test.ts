/**
 * nicepay.status(): what a failed inquiry is called. UNREACHABLE means the request never left;
 * a connection closed after the request was sent is an unusable answer (GATEWAY_ERROR).
 */
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createNicepay } from '../src/index.js';
import { NicepayGatewayError } from '../src/index.js';
import { rejectedWith } from './helpers/rejected.js';
import { MERCHANT_KEY, MID } from './helpers/shop.js';

describe('status(): transport failures', () => {
  it('a connection reset after the request was sent is NICEPAY_GATEWAY_ERROR, a refused connection NICEPAY_GATEWAY_UNREACHABLE', async () => {
    let received = 0;
    const server = createTcpServer((socket) => {
      socket.once('data', () => {
        received++;
        socket.resetAndDestroy();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const nicepay = createNicepay({ mid: MID, merchantKey: MERCHANT_KEY, baseUrl: `http://127.0.0.1:${port}` });
    try {
      const reset = await rejectedWith(nicepay.status(`${MID}01012611241000001234`), NicepayGatewayError);
      expect(received).to.equal(1);
      expect(reset).to.include({ code: 'NICEPAY_GATEWAY_ERROR' });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    const refused = await rejectedWith(nicepay.status(`${MID}01012611241000001234`), NicepayGatewayError);
    expect(refused).to.include({ code: 'NICEPAY_GATEWAY_UNREACHABLE' });
    await nicepay.close();
  });
});
