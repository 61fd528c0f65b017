import type { ClientContext } from '../context.js';
import { askStatus } from './client.js';

/**
 * What the status inquiry says about a TID whose outcome is unknown, as a clause for an error
 * message: advice, not proof (the answer is unsigned and shows no amount). Asked as part of
 * the work in flight (sent even while closing). Never throws.
 */
export async function statusAdvice(ctx: ClientContext, tid: string): Promise<string> {
  try {
    const s = await askStatus(ctx, tid, true);
    return `the status inquiry reports the TID as ${s.status} (advice only: it is unsigned and shows no amount)`;
  } catch {
    return 'the status inquiry could not be asked';
  }
}
