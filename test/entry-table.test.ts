import { expect } from 'chai';
import fc from 'fast-check';
import { EntryTable } from '../src/store/entry-table.js';

/** Keys in insertion order, read by walking the table's list. */
function order(table: EntryTable): number[] {
  const ids: number[] = [];
  for (let id = table.head; id !== -1; id = table.after(id)) ids.push(id);
  return ids;
}

// Short keys collide in few slots; long ones and odd characters exercise the byte copies.
const key = fc.oneof(
  fc.constantFrom('a', 'b', 'c', '', 'checkout:nictest00m:TX1'),
  fc.string({ maxLength: 40, unit: 'binary' }),
  fc.string({ maxLength: 6, unit: 'grapheme' }),
);
const value = fc.oneof(
  fc.constantFrom('', '{"ok":true}', '한글 결제 승인'),
  fc.string({ maxLength: 3000, unit: 'binary', size: 'max' }), // lone surrogates included
  fc.string({ maxLength: 200, unit: 'grapheme' }),
  // A stored record: JSON, then the gateway's answer bytes as Latin-1 characters.
  fc.string({ maxLength: 2000, size: 'max', unit: fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c)) }),
);
const op = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), key }),
  fc.record({ kind: fc.constant('set' as const), key, value }),
  fc.record({ kind: fc.constant('clear' as const), key }),
  fc.record({ kind: fc.constant('remove' as const), key }),
  fc.record({ kind: fc.constant('touch' as const), key }),
);

describe('EntryTable (memoryStore keeps keys and values off the heap)', () => {
  it('agrees with a Map on every key, value and the insertion order, through growth and slab turnover', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), (ops) => {
        // Small slabs, so that values get slabs of their own, slabs fill, empty and go sparse.
        const table = new EntryTable(256);
        const model = new Map<string, string | undefined>();
        for (const o of ops) {
          const id = table.find(o.key);
          expect(id === -1).to.equal(!model.has(o.key));
          if (o.kind === 'insert' && id === -1) {
            table.insert(o.key);
            model.set(o.key, undefined);
          } else if (o.kind === 'set') {
            table.setValue(id === -1 ? table.insert(o.key) : id, o.value);
            model.set(o.key, o.value);
          } else if (o.kind === 'clear' && id !== -1) {
            table.clearValue(id);
            model.set(o.key, undefined);
          } else if (o.kind === 'remove' && id !== -1) {
            table.remove(id);
            model.delete(o.key);
          } else if (o.kind === 'touch' && id !== -1) {
            table.touch(id);
            const v = model.get(o.key);
            model.delete(o.key);
            model.set(o.key, v);
          }
        }
        expect(table.size).to.equal(model.size);
        const ids = order(table);
        expect(ids.map((id) => [...model.keys()].find((k) => table.find(k) === id))).to.deep.equal([...model.keys()]);
        for (const [k, v] of model) {
          const id = table.find(k);
          expect(table.hasValue(id)).to.equal(v !== undefined);
          if (v !== undefined) expect(table.value(id)).to.equal(v);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps 20,000 records of 1 KB exact while most are removed along the way', () => {
    const table = new EntryTable(4096);
    const record = (i: number) => `{"tid":"TX${i}","name":"홍길동","note":"${'가나다'.repeat(150)}${i}"}`;
    for (let i = 0; i < 20_000; i++) {
      table.setValue(table.insert(`checkout:m:${i}`), record(i));
      if (i >= 1_000) table.remove(table.find(`checkout:m:${i - 1_000}`));
      if (i % 997 === 0) {
        for (let j = Math.max(0, i - 999); j <= i; j++) expect(table.value(table.find(`checkout:m:${j}`))).to.equal(record(j));
      }
    }
    expect(table.size).to.equal(1_000);
    expect(table.find('checkout:m:18999')).to.equal(-1);
    expect(table.find('checkout:m:19000x')).to.equal(-1);
    expect(table.find('checkout:m:0')).to.equal(-1);
    for (let i = 19_000; i < 20_000; i++) expect(table.value(table.find(`checkout:m:${i}`))).to.equal(record(i));
  });

  it('holds about what is live when entries leave oldest first, as memoryStore evicts them', () => {
    const table = new EntryTable(256);
    for (let i = 0; i < 100_000; i++) {
      const id = table.insert(`key-${i}`);
      if (i % 2 === 0) table.setValue(id, 'x'.repeat(100));
      if (i >= 100) table.remove(table.find(`key-${i - 100}`));
    }
    // 100 live keys of 24 bytes (9 code units, aligned), 2,400 bytes, in 256-byte slabs, each
    // at least a quarter live; 50 values of 104 in slabs of their own (over half a slab).
    expect(table.bytesHeld).to.be.within(2_400 + 5_200, 4 * 2_400 + 256 + 5_200);
  });

  it('empties slabs that scattered removals left sparse, keeping every survivor exact', () => {
    const table = new EntryTable(); // 1 MiB slabs
    const record = (i: number) => `{"tid":"TX${i}"}\n${'\xb0\xa1'.repeat(500)}`;
    for (let i = 0; i < 50_000; i++) table.setValue(table.insert(`k${i}`), record(i));
    expect(table.bytesHeld).to.be.above(50_000 * 1_000);
    for (let i = 0; i < 50_000; i++) if (i % 50 !== 0) table.remove(table.find(`k${i}`));
    // 1,000 survivors of ~1,030 bytes: no slab may stay less than a quarter live, so at most
    // four times that, plus the slab being filled.
    expect(table.bytesHeld).to.be.at.most(4 * 1_030_000 + 1024 * 1024);
    for (let i = 0; i < 50_000; i += 50) expect(table.value(table.find(`k${i}`))).to.equal(record(i));
    expect(table.size).to.equal(1_000);
  });

  it('keeps an empty key with an empty value after every slab it was written in is gone', () => {
    const table = new EntryTable(64);
    table.setValue(table.insert(''), '');
    for (let i = 0; i < 100; i++) table.remove(table.insert(`filler-${i}`));
    expect(table.value(table.find(''))).to.equal('');
  });

  it('clear() forgets every entry', () => {
    const table = new EntryTable();
    table.setValue(table.insert('k'), 'v');
    table.clear();
    expect(table.size).to.equal(0);
    expect(table.find('k')).to.equal(-1);
    expect(table.hasValue(table.insert('k'))).to.equal(false);
  });
});
