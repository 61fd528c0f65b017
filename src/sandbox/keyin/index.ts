import type { SandboxModule } from '../types.js';
import { cardKeyin } from './card-keyin.js';

export { SANDBOX_TEST_CARDS, KEYIN_DECLINES, type SandboxTestCard, type SandboxCardOutcome } from './cards.js';

/** Interface B of the sandbox: card key-in (POST /webapi/card_keyin.jsp). */
export const keyinModule: SandboxModule = {
  name: 'keyin',
  routes: {
    'POST /webapi/card_keyin.jsp': cardKeyin,
  },
};
