import type { ClientContext } from '../context.js';
import { createStatusClient } from './client.js';

/**
 * What the status inquiry says about a TID whose outcome is unknown, as a clause for an error
 * message: advice, not proof (the answer is unsigned and shows no amount). Never throws.
 */
export async function statusAdvice(ctx: ClientContext, tid: string): Promise<string> {
  try {
    const s = await createStatusClient(ctx)(tid);
    return `the status inquiry reports the TID as ${s.status} (advice only: it is unsigned and shows no amount)`;
  } catch {
    return 'the status inquiry could not be asked';
  }
}
