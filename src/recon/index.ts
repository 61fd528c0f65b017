export { createReconClient } from './recon-client.js';
export type * from './types.js';
