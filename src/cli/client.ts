import { createNicepay, isNicepayError, type Nicepay } from '../index.js';
import { OPTION_ENV, readCredentials } from './env.js';
import { CliConfigError } from './exit-codes.js';
import type { CliIo } from './output.js';

/**
 * Runs `fn` with a client made from the environment's credentials (NICEPAY_DATA_URL as both
 * hosts: the CLI only calls the data host) and closes it afterwards.
 */
export async function withClient<T>(io: CliIo, fn: (nicepay: Nicepay) => Promise<T>): Promise<T> {
  const creds = readCredentials(io.env);
  let nicepay: Nicepay;
  try {
    nicepay = createNicepay({ mid: creds.mid, merchantKey: creds.merchantKey, baseUrl: creds.dataUrl, dataUrl: creds.dataUrl });
  } catch (err) {
    // The client names its option (baseUrl); the operator set an environment variable.
    const m = isNicepayError(err) && err.code === 'NICEPAY_CONFIG_INVALID' ? /option (\w+) is invalid: (.*)$/s.exec(err.message) : null;
    if (m && OPTION_ENV[m[1]!]) throw new CliConfigError(`${OPTION_ENV[m[1]!]} is invalid: ${m[2]}`);
    throw err;
  }
  try {
    return await fn(nicepay);
  } finally {
    await nicepay.close();
  }
}
