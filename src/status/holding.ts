import type { ClientContext } from '../context.js';
import type { GatewayHolding } from '../pipeline/index.js';
import { askStatus } from './client.js';
import type { TransactionStatus } from './types.js';

/**
 * What the gateway holds for a TID, as settlement reads the status inquiry (lifecycle-facts §4:
 * advice, not proof): approved holds money, cancelled was reversed, "no approved transaction"
 * holds none. An inquiry that fails rejects; settlement asks again later.
 */
export async function holdingByStatus(ctx: ClientContext, tid: string): Promise<GatewayHolding> {
  return holdingOfStatus(await askStatus(ctx, tid, true));
}

/** What a status answer says the gateway holds: approved holds money, cancelled was reversed, else none. */
export function holdingOfStatus(s: TransactionStatus): GatewayHolding {
  return s.status === 'approved' ? 'holds' : s.status === 'cancelled' ? 'reversed' : 'none';
}
