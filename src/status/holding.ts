import type { ClientContext } from '../context.js';
import type { GatewayHolding } from '../pipeline/index.js';
import { askStatus } from './client.js';

/**
 * What the gateway holds for a TID, as settlement reads the status inquiry (lifecycle-facts §4:
 * advice, not proof): approved holds money, cancelled was reversed, "no approved transaction"
 * holds none. An inquiry that fails rejects; settlement asks again later.
 */
export async function holdingByStatus(ctx: ClientContext, tid: string): Promise<GatewayHolding> {
  const s = await askStatus(ctx, tid, true);
  return s.status === 'approved' ? 'holds' : s.status === 'cancelled' ? 'reversed' : 'none';
}
