import { CliConfigError } from './exit-codes.js';

/** Credentials the payout and recon commands read from the environment. */
export interface CliCredentials {
  mid: string;
  merchantKey: string;
  dataUrl: string;
}

/** The environment variables the CLI reads, with what each holds (shown in --help). */
export const ENV_HELP = `Environment:
  NICEPAY_MID           merchant id (10 characters)
  NICEPAY_MERCHANT_KEY  merchant key (never printed)
  NICEPAY_DATA_URL      data host, e.g. https://data.nicepay.co.kr or a sandbox URL
  DEBUG=express-nicepay log each gateway call to stderr (keys and card data redacted)`;

/** The environment variable behind each client option the CLI sets (config errors name the variable). */
export const OPTION_ENV: Readonly<Record<string, string>> = {
  mid: 'NICEPAY_MID', merchantKey: 'NICEPAY_MERCHANT_KEY', baseUrl: 'NICEPAY_DATA_URL', dataUrl: 'NICEPAY_DATA_URL',
};

/**
 * Reads the credentials; a missing one, or a NICEPAY_DATA_URL that is not an http(s) URL, is
 * a {@link CliConfigError} naming the variable (exit 3).
 */
export function readCredentials(env: NodeJS.ProcessEnv): CliCredentials {
  const missing = ['NICEPAY_MID', 'NICEPAY_MERCHANT_KEY', 'NICEPAY_DATA_URL'].filter((k) => !env[k]);
  if (missing.length > 0) {
    throw new CliConfigError(`missing environment variable${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (see --help)`);
  }
  const dataUrl = env['NICEPAY_DATA_URL']!;
  if (!URL.canParse(dataUrl) || !/^https?:$/.test(new URL(dataUrl).protocol)) {
    throw new CliConfigError(`NICEPAY_DATA_URL is invalid: expected an http(s) URL such as https://data.nicepay.co.kr, got ${JSON.stringify(dataUrl)}`);
  }
  return { mid: env['NICEPAY_MID']!, merchantKey: env['NICEPAY_MERCHANT_KEY']!, dataUrl };
}
