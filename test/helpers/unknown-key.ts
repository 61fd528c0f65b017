import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { expect } from 'chai';
import { GATEWAY_CALL_CHANNEL, NicepayConfigError, NicepayRequestError } from '../../src/index.js';

/** What an unknown key's refusal must say: the key's path, the call that refused it, and the hint. */
export interface UnknownKeyRefusal {
  /** The path of the unknown key (`idempotencykey`, `card.numbr`). */
  field: string;
  /** How the message names the method (`cancel()`, `payout.request()`). */
  caller: string;
  /** The known name the message suggests, if any. */
  hint?: string;
}

/**
 * Asserts `err` is a per-call input refusal of an unknown key: 400 NICEPAY_FIELD_INVALID naming
 * the key, the method and, when given, the did-you-mean hint.
 */
export function expectUnknownInput(err: unknown, want: UnknownKeyRefusal): NicepayRequestError {
  expect(err).to.be.instanceOf(NicepayRequestError);
  const e = err as NicepayRequestError;
  expect(e).to.include({ code: 'NICEPAY_FIELD_INVALID', status: 400, field: want.field });
  expect(e.message).to.include(`${want.caller}: ${want.field} is not an input of ${want.caller}`);
  if (want.hint !== undefined) expect(e.message).to.include(`Did you mean '${want.hint}'?`);
  else expect(e.message).to.not.include('Did you mean');
  return e;
}

/** Asserts `make` throws the NicepayConfigError of an unknown option of `want.caller`. */
export function expectUnknownOption(make: () => unknown, want: UnknownKeyRefusal): NicepayConfigError {
  let thrown: unknown;
  try {
    make();
  } catch (err) {
    thrown = err;
  }
  expect(thrown, `${want.caller} with ${want.field}`).to.be.instanceOf(NicepayConfigError);
  const e = thrown as NicepayConfigError;
  expect(e).to.include({ code: 'NICEPAY_CONFIG_INVALID', field: want.field });
  expect(e.message).to.include(`not an option of ${want.caller}`);
  if (want.hint !== undefined) expect(e.message).to.include(`Did you mean '${want.hint}'?`);
  return e;
}

/** Awaits a promise that must reject (or a function that must throw); returns the reason. */
export async function refusal(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error('expected a refusal, got a result');
}

/**
 * Counts the gateway calls the package starts (the `start` events of its gateway-call
 * TracingChannel) until `stop()`: zero means nothing was sent to either host.
 */
export function countGatewayCalls(): { count(): number; stop(): void } {
  let n = 0;
  const channel = `tracing:${GATEWAY_CALL_CHANNEL}:start`;
  const onStart = (): void => {
    n++;
  };
  subscribe(channel, onStart);
  return { count: () => n, stop: () => unsubscribe(channel, onStart) };
}
