import type { ResolvedConfig } from './config.js';
import type { Transport } from './transport.js';

/**
 * What every interface client shares: the resolved configuration and one transport per host
 * role. Created once by createNicepay; internal, not exported from the package.
 */
export interface ClientContext {
  config: ResolvedConfig;
  /** Interfaces A and B (approval, net cancel, key-in). */
  web: Transport;
  /** Interfaces C and D (payout, reconciliation). */
  data: Transport;
  /** True once close() was called: new work is refused with NICEPAY_SHUTTING_DOWN. */
  isClosing(): boolean;
  /** Counts calls in flight so close() can wait for them. */
  track<T>(work: Promise<T>): Promise<T>;
  /** Resolves once no tracked call is in flight. */
  whenIdle(): Promise<void>;
}
