import { expect } from 'chai';
import { gatewayEndpoint } from '../src/gateway-endpoint.js';

describe('gatewayEndpoint', () => {
  it('appends the endpoint to baseUrl, keeping a path prefix and dropping a trailing slash', () => {
    expect(gatewayEndpoint(new URL('https://webapi.nicepay.co.kr'), '/webapi/cancel_process.jsp').href).to.equal(
      'https://webapi.nicepay.co.kr/webapi/cancel_process.jsp',
    );
    expect(gatewayEndpoint(new URL('http://127.0.0.1:8080/proxy/'), '/webapi/card_keyin.jsp').href).to.equal(
      'http://127.0.0.1:8080/proxy/webapi/card_keyin.jsp',
    );
  });
});
