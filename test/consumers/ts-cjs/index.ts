// CommonJS TypeScript consumer: `module: nodenext` in a "type": "commonjs" package compiles
// this import to require(), which loads the ESM package on Node >= 20.19 (require(esm)).
import { createNicepay, isNicepayError, type NicepayOptions } from 'express-nicepay';
import { createSandbox } from 'express-nicepay/sandbox';

const options: NicepayOptions = {
  mid: 'nicepay00m',
  merchantKey: 'k'.repeat(40),
  baseUrl: 'https://webapi.nicepay.co.kr',
};
const nicepay = createNicepay(options);
let configError = '';
try {
  createNicepay({ ...options, baseUrl: 'https://webapi.nicepay.co.kr/webapi' });
} catch (err) {
  if (isNicepayError(err)) configError = `${err.code} ${err.field ?? ''}`;
}
console.log(
  JSON.stringify({
    compiledTo: typeof require,
    middleware: typeof nicepay.checkoutReturn({ expectedAmount: () => 1004 }),
    sandbox: typeof createSandbox,
    configError,
  }),
);
void nicepay.close();
