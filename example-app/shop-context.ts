import type { Logger, Nicepay } from '../src/index.js';
import type { Sandbox } from '../src/sandbox/index.js';
import type { ShopDb } from './db.js';
import type { OrderAccess } from './order-access.js';

/** What every router of the shop gets. */
export interface ShopContext {
  db: ShopDb;
  nicepay: Nicepay;
  logger: Logger;
  mid: string;
  merchantKey: string;
  windowUrl: string;
  publicUrl: string | undefined;
  /** The shop's clock (the client's `clock` when given): payout dates and cut-offs agree with it. */
  clock: () => Date;
  /** The embedded sandbox, if any (the back office's deposit button). */
  sandbox: Sandbox | undefined;
  /** Who may see which order: the buyer's own, by cookie or signed link. */
  access: OrderAccess;
}
