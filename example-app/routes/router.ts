import { Router } from 'express';

/**
 * A router of the shop's: it matches paths as spelled, as the app does (`case sensitive
 * routing`). Express's Router matches case-blind by default, so `/Orders/x` would otherwise
 * reach the handler of `/orders/:moid` by a spelling nothing else in the shop expects.
 */
export function shopRouter(): Router {
  return Router({ caseSensitive: true });
}
