import { isNicepayError, type Nicepay } from '../index.js';
import { CliConfigError } from './exit-codes.js';

/** Credentials the commands read from the environment. */
export interface CliCredentials {
  mid: string;
  merchantKey: string;
  /** The gateway host the command calls: NICEPAY_DATA_URL, or NICEPAY_BASE_URL for cancel and status. */
  url: string;
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
 * Reads the credentials and the host in `urlVariable`; every missing variable is named in one
 * {@link CliConfigError} (exit 3), together with any `alsoMissing` a command adds (a store it
 * needs), so an operator fixes the environment in one go, and a URL that is not http(s) is
 * refused naming its variable.
 */
export function readCredentials(env: NodeJS.ProcessEnv, urlVariable: 'NICEPAY_DATA_URL' | 'NICEPAY_BASE_URL' = 'NICEPAY_DATA_URL', alsoMissing: readonly string[] = []): CliCredentials {
  const missing = ['NICEPAY_MID', 'NICEPAY_MERCHANT_KEY', urlVariable].filter((k) => !env[k]);
  if (missing.length > 0 || alsoMissing.length > 0) {
    const named = missing.length > 0 ? [`missing environment variable${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`] : [];
    throw new CliConfigError(`${[...named, ...alsoMissing].join('; ')} (see --help)`);
  }
  return { mid: env['NICEPAY_MID']!, merchantKey: env['NICEPAY_MERCHANT_KEY']!, url: httpUrl(env, urlVariable)! };
}

/**
 * The http(s) URL in `variable`, or undefined when it is unset; anything else is refused with
 * a {@link CliConfigError} naming the variable and an example of the host it should name.
 */
export function httpUrl(env: NodeJS.ProcessEnv, variable: 'NICEPAY_DATA_URL' | 'NICEPAY_BASE_URL'): string | undefined {
  const url = env[variable];
  if (!url) return undefined;
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    const example = variable === 'NICEPAY_DATA_URL' ? 'https://data.nicepay.co.kr' : 'https://webapi.nicepay.co.kr';
    throw new CliConfigError(`${variable} is invalid: expected an http(s) URL such as ${example}, got ${JSON.stringify(url)}`);
  }
  return url;
}

/**
 * A configuration refusal (`NICEPAY_CONFIG_INVALID`) as a {@link CliConfigError} naming the
 * environment variable behind the refused option (`variableOf(field)`), so the operator reads
 * the name they set; any other error is returned as it is.
 */
export function renameConfigError(err: unknown, variableOf: (field: string) => string | undefined): unknown {
  const field = isNicepayError(err) && err.code === 'NICEPAY_CONFIG_INVALID' ? err.field : undefined;
  const variable = field === undefined ? undefined : variableOf(field);
  const wants = err instanceof Error ? /option \S+ is invalid: (.*)$/s.exec(err.message)?.[1] : undefined;
  return variable !== undefined && wants !== undefined ? new CliConfigError(`${variable} is invalid: ${wants}`) : err;
}

/**
 * Creates a client, turning a configuration refusal into a {@link CliConfigError} that names
 * the environment variable the operator set rather than the client option behind it.
 */
export function clientFromEnv(create: () => Nicepay, urlVariable: string): Nicepay {
  try {
    return create();
  } catch (err) {
    throw renameConfigError(err, (field) => (field === 'baseUrl' || field === 'dataUrl' ? urlVariable : OPTION_ENV[field]));
  }
}
