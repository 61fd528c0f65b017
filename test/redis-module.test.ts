/**
 * redisStore({ url }) without the optional `redis` package: it must fail
 * when the store is created, with the install hint, not at the first payment. The missing
 * package is simulated through the module's resolver seam; nothing is connected.
 */
import { expect } from 'chai';
import { NicepayConfigError } from '../src/errors/index.js';
import { simulateRedisResolver } from '../src/store/redis-module.js';
import { redisStore } from '../src/store/redis-store.js';

describe('redisStore without the redis package', () => {
  it('fails at creation with a NicepayConfigError saying npm install redis', () => {
    const restore = simulateRedisResolver(() => {
      throw Object.assign(new Error("Cannot find package 'redis'"), { code: 'ERR_MODULE_NOT_FOUND' });
    });
    let thrown: unknown;
    try {
      redisStore({ url: 'redis://127.0.0.1:1' });
    } catch (err) {
      thrown = err;
    } finally {
      restore();
    }
    expect(thrown).to.be.instanceOf(NicepayConfigError);
    expect(thrown).to.include({ code: 'NICEPAY_CONFIG_INVALID', status: 500 });
    expect((thrown as Error).message).to.include('npm install redis');
  });

  it('a store given a client needs no redis package, and with the package installed url mode is created', async () => {
    const restore = simulateRedisResolver(() => {
      throw new Error('missing');
    });
    try {
      const store = redisStore({ client: { sendCommand: async () => null } });
      await store.close?.();
    } finally {
      restore();
    }
    const owned = redisStore({ url: 'redis://127.0.0.1:1', commandTimeoutMs: 50 });
    await owned.close?.();
  });
});
