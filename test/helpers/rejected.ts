import { expect } from 'chai';

/** Awaits a promise that must reject with an instance of `type`; returns the reason, typed. */
export async function rejectedWith<T extends Error>(
  p: Promise<unknown>,
  type: abstract new (...args: never[]) => T,
): Promise<T> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(type);
    return err as T;
  }
  throw new Error(`expected a rejection with ${type.name}, got a result`);
}
