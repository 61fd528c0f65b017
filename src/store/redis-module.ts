import { createRequire } from 'node:module';
import { NicepayConfigError } from '../errors/index.js';

/**
 * Where the optional `redis` package resolves from, by Node's own resolution from this file
 * (the package is CommonJS with a `main`); replaced only by tests (see below).
 */
let resolveRedis: () => string = () => createRequire(import.meta.url).resolve('redis');

/**
 * Fails at once, when `redisStore({ url })` is created, if the optional peer dependency
 * `redis` is not installed: a shop learns it at start-up with the install
 * hint, not from a 503 on its first payment. Resolving is synchronous and loads nothing.
 */
export function assertRedisInstalled(): void {
  try {
    resolveRedis();
  } catch (cause) {
    throw new NicepayConfigError(
      'url',
      'needs the optional peer dependency "redis": npm install redis (or pass a connected `client`)',
      cause,
    );
  }
}

/** Loads the `redis` package (after {@link assertRedisInstalled} said it is there). */
export function loadRedis(): Promise<typeof import('redis')> {
  return import('redis');
}

/**
 * Test seam: makes {@link assertRedisInstalled} resolve with `resolver` instead, to simulate
 * a shop without the package. Returns the function that restores the real resolver.
 * @internal
 */
export function simulateRedisResolver(resolver: () => string): () => void {
  const before = resolveRedis;
  resolveRedis = resolver;
  return () => {
    resolveRedis = before;
  };
}
