/**
 * Short fuzz run for CI (300 cases per property); `npm run fuzz` runs the same properties
 * for 100,000+ cases.
 */
import fc from 'fast-check';
import { allProperties } from './fuzz/properties.js';

describe('fuzz (fast-check, short run)', function () {
  this.timeout(60_000);
  let ctx: Awaited<ReturnType<typeof allProperties>>;
  before(async () => {
    ctx = await allProperties();
  });
  after(() => ctx?.close());

  for (const name of ['form codec', 'KV parser', 'response parser + mapper', 'return endpoint']) {
    it(`${name}: no crash, no pollution${name === 'return endpoint' ? ', never 5xx, no outbound request' : ''}`, async () => {
      const p = ctx.props.find((x) => x.name === name)!;
      await fc.assert(p.prop, { numRuns: 300 });
    });
  }
});
