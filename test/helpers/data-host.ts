import { createNicepay, type Nicepay } from '../../src/nicepay.js';
import type { NicepayOptions } from '../../src/config.js';
import { createSandbox, TEST_MERCHANTS, type Sandbox } from '../../src/sandbox/index.js';
import { fromKst } from '../../src/wire/kst.js';

/** The key-in test merchant; the payout and recon vectors use it too. */
export const DATA_MID = 'nictest04m';
export const DATA_KEY = TEST_MERCHANTS.find((m) => m.mid === DATA_MID)!.merchantKey;
/** Its data host login id in the sandbox (the default `${mid}admin`). */
export const DATA_USR_ID = `${DATA_MID}admin`;

/** A client and a sandbox on loopback sharing the sandbox's virtual clock, frozen at `start`. */
export interface DataHostRig {
  sandbox: Sandbox;
  nicepay: Nicepay;
  /** Moves the shared clock to a KST wall time. */
  at(year: number, month: number, day: number, hour: number, minute?: number, second?: number): void;
  close(): Promise<void>;
}

/** Starts a rig; the clock is frozen (exact cut-off assertions) at `start`. */
export async function startDataHost(
  start: Date = fromKst(2026, 11, 23, 9, 0),
  options: Partial<NicepayOptions> = {},
): Promise<DataHostRig> {
  const sandbox = createSandbox({ clock: () => start });
  sandbox.clock.freeze();
  sandbox.clock.set(start);
  const { url } = await sandbox.listen(0);
  const nicepay = createNicepay({
    mid: DATA_MID,
    merchantKey: DATA_KEY,
    baseUrl: url,
    dataUrl: url,
    clock: () => sandbox.clock.now(),
    timeouts: { connectMs: 1_000, responseMs: 1_500 },
    ...options,
  });
  return {
    sandbox,
    nicepay,
    at: (y, mo, d, h, mi = 0, s = 0) => sandbox.clock.set(fromKst(y, mo, d, h, mi, s)),
    async close() {
      await nicepay.close();
      await sandbox.close();
    },
  };
}

/** A sub-merchant the data host accepts (account 004 / `11-<subId>`, holder 홍길동). */
export const seller = (subId: string) => ({
  subId,
  subNm: `상점 ${subId}`,
  subCoNo: '1234567890',
  bankCd: '004',
  accntNo: `11-${subId}`,
  accntNm: '홍길동',
});

/** Awaits a promise that must reject; returns the reason. */
// biome-ignore lint/suspicious/noExplicitAny: each caller reads the fields of the error class it asserts
export async function rejection(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection, got a result');
}
