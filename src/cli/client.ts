import { createNicepay, type Nicepay } from '../index.js';
import { clientFromEnv, readCredentials } from './env.js';
import type { CliIo } from './output.js';

/**
 * Runs `fn` with a client made from the environment's credentials (NICEPAY_DATA_URL as both
 * hosts: the CLI only calls the data host) and closes it afterwards.
 */
export async function withClient<T>(io: CliIo, fn: (nicepay: Nicepay) => Promise<T>): Promise<T> {
  const creds = readCredentials(io.env);
  const nicepay = clientFromEnv(
    () => createNicepay({ mid: creds.mid, merchantKey: creds.merchantKey, baseUrl: creds.url, dataUrl: creds.url }),
    'NICEPAY_DATA_URL',
  );
  try {
    return await fn(nicepay);
  } finally {
    await nicepay.close();
  }
}
