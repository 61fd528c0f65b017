/**
 * The multi-process set-up of the crash-recovery and multi-instance tests: one sandbox on
 * loopback and two shop processes using it and one shared store.
 */
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { startRedisServer, type RedisServer } from './redis-server.js';
import { MERCHANT_KEY, MID } from './shop.js';
import { startInstance, type Instance } from './shop-instance.js';

/** A sandbox and the two shop instances on it. */
export interface TwoShops {
  sandbox: Sandbox;
  instances: Instance[];
  /** Stops both instances, then the sandbox. */
  stop(): Promise<void>;
}

/**
 * Starts a sandbox on a free loopback port and two shop instances using it with the test
 * MID and merchant key plus `env` (the store: REDIS_URL or REDIS_CLUSTER, and any timeouts).
 * When an instance fails to start, what did start is stopped before the error is thrown.
 */
export async function startTwoShops(env: Record<string, string>): Promise<TwoShops> {
  const sandbox = createSandbox();
  const { url } = await sandbox.listen(0);
  const shopEnv = { SANDBOX_URL: url, ...env, MID, MERCHANT_KEY };
  const started = await Promise.allSettled([startInstance(shopEnv), startInstance(shopEnv)]);
  const instances = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const stop = async (): Promise<void> => {
    await Promise.all(instances.splice(0).map((i) => i.stop()));
    await sandbox.close();
  };
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  return { sandbox, instances, stop };
}

/** Two shops sharing one throwaway redis-server. */
export interface TwoShopsOnRedis extends TwoShops {
  redis: RedisServer;
  /** Stops both instances, the sandbox, then the Redis server. */
  stop(): Promise<void>;
}

/** Starts a redis-server and {@link startTwoShops} on it (REDIS_URL); stops the server if the shops fail to start. */
export async function startTwoShopsOnRedis(): Promise<TwoShopsOnRedis> {
  const redis = await startRedisServer();
  let shops: TwoShops;
  try {
    shops = await startTwoShops({ REDIS_URL: redis.url });
  } catch (err) {
    await redis.stop();
    throw err;
  }
  return {
    ...shops,
    redis,
    async stop() {
      await shops.stop();
      await redis.stop();
    },
  };
}
