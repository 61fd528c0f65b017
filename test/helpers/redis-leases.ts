/**
 * Expiring a Redis Cluster's ledger leases by hand: what Redis does once each lease's TTL has
 * passed, without a test waiting the 30 s a lease lives.
 */
import { expect } from 'chai';
import { createClient } from 'redis';
import type { RedisCluster } from './redis-cluster.js';

/** Checks that each key matching `pattern` on the node at `port` has an expiry, then deletes it. */
async function expireOnNode(port: number, pattern: string): Promise<void> {
  const client = createClient({ url: `redis://127.0.0.1:${port}`, socket: { reconnectStrategy: false } });
  client.on('error', () => {});
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: pattern, COUNT: 1000 })) {
      for (const key of keys) {
        const left = await client.pTTL(key);
        // -2: gone meanwhile (released, or written with its release). Otherwise it must carry an expiry.
        if (left === -2) continue;
        expect(left, `${key} has an expiry`).to.be.greaterThan(0);
        await client.del(key);
      }
    }
  } finally {
    client.destroy();
  }
}

/**
 * Expires every lease matching `pattern` (e.g. `mi:{*}:lease`) on the cluster's masters, checking
 * that each has an expiry (the store never leaves one without). Only for a moment when no holder
 * runs: a live holder's lease is renewed, so Redis would never expire it.
 */
export async function expireLeases(cluster: RedisCluster, pattern: string): Promise<void> {
  for (const port of await cluster.masters()) await expireOnNode(port, pattern);
}
