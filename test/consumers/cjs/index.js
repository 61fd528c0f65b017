// CommonJS consumer: require() of the ESM package (unflagged from Node 20.19, require(esm)).
const { createNicepay, NicepayError, isNicepayError } = require('express-nicepay');
const { createSandbox } = require('express-nicepay/sandbox');
const { redisStore } = require('express-nicepay/redis');

const nicepay = createNicepay({
  mid: 'nicepay00m',
  merchantKey: 'k'.repeat(40),
  baseUrl: 'https://webapi.nicepay.co.kr',
});
const middleware = nicepay.checkoutReturn({ expectedAmount: () => 1004 });
let configError;
try {
  createNicepay({ mid: 'short', merchantKey: 'k'.repeat(40), baseUrl: 'https://webapi.nicepay.co.kr' });
} catch (err) {
  configError = isNicepayError(err) && err instanceof NicepayError ? err.code : String(err);
}
console.log(
  JSON.stringify({
    middleware: typeof middleware,
    arity: middleware.length,
    sandbox: typeof createSandbox().listen,
    redisStore: typeof redisStore,
    configError,
  }),
);
nicepay.close();
