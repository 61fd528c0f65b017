import type { ResolvedConfig } from './config.js';
import { createTransport, type Transport } from './transport.js';
import { NicepayConfigError } from './errors/index.js';

/**
 * What every interface client shares: the resolved configuration and one transport per host
 * role. Created once by createNicepay (createContext); internal, not exported from the package.
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
  /** How many tracked calls are in flight. */
  inFlight(): number;
  /** Resolves the next time no tracked call is in flight (at once when none is). */
  whenIdle(): Promise<void>;
  /**
   * The onApproved hooks routes registered (checkoutReturn, keyinRouter), by the name their
   * records carry: the ones settlement runs again for a committed payment whose hook never
   * resolved. The context sits below the pipeline, so it names neither type.
   */
  hooks: Map<string, RegisteredHook>;
}

/** A route's onApproved as settlement runs it: with no request. */
export type RouteHook = (result: unknown, context: { signal: AbortSignal }) => unknown;

/** A registered hook and the ledger operation whose records it is for. */
export interface RegisteredHook {
  operation: string;
  run: RouteHook;
}

/**
 * Registers a route's onApproved under the name its ledger records carry, so settlement runs
 * this route's hook for this route's payments: `name` as the shop gave it, or `${operation}#1`
 * for the one route of the operation that has none. A second unnamed one is refused, as is a
 * name already registered: numbering routes by creation order would let a deploy that reorders
 * them run one route's hook for another's payments. Returns the name.
 */
export function registerRouteHook(
  ctx: ClientContext,
  operation: string,
  name: string | undefined,
  hook: RouteHook,
): string {
  if (name !== undefined && (typeof name !== 'string' || name === '' || name.includes('#')))
    throw new NicepayConfigError('name', "a non-empty string without '#' naming the route's hook in the ledger");
  const chosen = name ?? `${operation}#1`;
  if (ctx.hooks.has(chosen))
    throw new NicepayConfigError(
      'name',
      name === undefined
        ? `another ${operation} route with onApproved has no name: when a shop has several, give each its own name (the same in every instance), so settlement runs each route's hook for its own payments`
        : `another route's hook is registered as '${chosen}': give each route its own name`,
    );
  ctx.hooks.set(chosen, { operation, run: hook });
  return chosen;
}

/** One close promise per context: every close() call waits for the same shutdown. */
const closing = new WeakMap<ClientContext, Promise<void>>();

/** The context of one createNicepay client: its configuration, transports and calls in flight. */
export function createContext(config: ResolvedConfig): ClientContext {
  const transportOptions = {
    connectMs: config.connectMs,
    responseMs: config.responseMs,
    maxResponseBytes: config.maxResponseBytes,
  };
  const web = createTransport(transportOptions);
  const data = createTransport(transportOptions);
  // A count and one shared callback rather than a set of promises: nothing is allocated per
  // call beyond the one reaction that observes it settle.
  let inFlight = 0;
  let wake: (() => void) | undefined;
  const settled = (): void => {
    if (--inFlight === 0 && wake) {
      const w = wake;
      wake = undefined;
      w();
    }
  };
  const ctx: ClientContext = {
    config,
    web,
    data,
    isClosing: () => closing.has(ctx),
    track(work) {
      inFlight++;
      work.then(settled, settled);
      return work;
    },
    inFlight: () => inFlight,
    hooks: new Map(),
    whenIdle() {
      if (inFlight === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const before = wake;
        wake = () => {
          before?.();
          resolve();
        };
      });
    },
  };
  return ctx;
}

/**
 * Shuts a context down once, however often it is called: waits until no tracked call is in
 * flight (checked again after every wake-up, since a call that settles may start another one,
 * such as a net cancel), then closes both transports and the store, if this client created it.
 */
export function closeContext(ctx: ClientContext): Promise<void> {
  let done = closing.get(ctx);
  if (!done) {
    done = (async () => {
      // The count is read in the same synchronous step that goes on to close the transports.
      while (ctx.inFlight() > 0) await ctx.whenIdle();
      await Promise.all([ctx.web.close(), ctx.data.close()]);
      // A store the shop passed in may serve other instances: only ours is closed here.
      if (ctx.config.ownsStore) await ctx.config.store.close?.();
    })();
    closing.set(ctx, done);
  }
  return done;
}
