/**
 * The table behind memoryStore, kept off the JavaScript heap: entry fields live in typed
 * arrays and every key and value is copied into slabs of bytes (ByteSlabs). A Map of strings
 * and entry objects costs nothing per call, but each kept entry is two or three heap objects
 * that every major GC marks, and each finished approval's record survives two scavenges
 * before it settles in the old space. Here an approval leaves no live object behind.
 *
 * Keys are kept as UTF-16 code units and values as Latin-1, UTF-8 or UTF-16, whichever is
 * exact for the value, so both come back exactly as given. Insertion order is a linked list of
 * entry ids, oldest first, for eviction.
 */
import { ByteSlabs } from './byte-slabs.js';

const EMPTY = -1;
const TOMBSTONE = -2;
const NONE = -1;
const ABOVE_LATIN1 = /[^\x00-\xff]/;
const SURROGATE = /[\uD800-\uDFFF]/;

/** A value's encoding in the slabs. */
const Encoding = { None: 0, Latin1: 1, Utf8: 2, Utf16: 3 } as const;
type Encoding = (typeof Encoding)[keyof typeof Encoding];
/** Buffer's name of each encoding (index 0, no value, is never read). */
const NAMES: readonly BufferEncoding[] = ['latin1', 'latin1', 'utf8', 'utf16le'];

/**
 * Entries addressed by id: find, insert and remove by key; a lock token and two expiry times
 * as numbers; one string value. Not a general-purpose map: ids are reused after remove().
 */
export class EntryTable {
  /** Lock token number of the entry (0: no lock). */
  token = new Float64Array(0);
  /** When the entry's lock expires (ms since epoch). */
  lockExpires = new Float64Array(0);
  /** When the entry's value expires (ms since epoch). */
  valueExpires = new Float64Array(0);

  private hash = new Int32Array(0);
  private keySlab = new Int32Array(0);
  private keyOff = new Int32Array(0);
  private keyLen = new Int32Array(0);
  private valSlab = new Int32Array(0);
  private valOff = new Int32Array(0);
  private valBytes = new Int32Array(0);
  private valEnc = new Uint8Array(0);
  private prev = new Int32Array(0);
  private next = new Int32Array(0);
  private free = new Int32Array(0);
  private freeCount = 0;
  private capacity = 0;

  private slots = new Int32Array(16).fill(EMPTY);
  private tombstones = 0;

  private slabs: ByteSlabs;

  /** @param slabBytes size of the Buffers keys and values are kept in */
  constructor(private readonly slabBytes = 1024 * 1024) {
    this.slabs = new ByteSlabs(slabBytes);
  }

  /** Number of entries. */
  size = 0;
  /** The oldest entry's id, or -1. */
  head = NONE;
  private tail = NONE;

  /** Bytes the slabs hold now (live, and freed but not yet reused). */
  get bytesHeld(): number {
    return this.slabs.size;
  }

  /** The entry after `id` in insertion order, or -1. */
  after(id: number): number {
    return this.next[id]!;
  }

  /** The entry id of `key`, or -1. */
  find(key: string): number {
    const h = hashOf(key);
    const mask = this.slots.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const id = this.slots[i]!;
      if (id === EMPTY) return NONE;
      if (id !== TOMBSTONE && this.hash[id] === h && this.keyIs(id, key)) return id;
    }
  }

  /** Adds `key` (which must not be present) as the newest entry, with no lock and no value. */
  insert(key: string): number {
    // Room first: if Node cannot allocate it, this throws before anything has changed.
    const off = this.slabs.alloc(key.length * 2);
    const slab = this.slabs.lastSlab;
    if ((this.size + this.tombstones + 1) * 2 > this.slots.length) this.rehash(this.size + 1);
    if (this.freeCount === 0) this.grow();
    const id = this.free[--this.freeCount]!;
    const h = hashOf(key);
    const units = this.slabs.units(slab);
    const base = off >>> 1;
    for (let i = 0; i < key.length; i++) units[base + i] = key.charCodeAt(i);
    this.hash[id] = h;
    this.keySlab[id] = slab;
    this.keyOff[id] = off;
    this.keyLen[id] = key.length;
    this.valEnc[id] = Encoding.None;
    this.valBytes[id] = 0;
    this.token[id] = 0;
    this.lockExpires[id] = 0;
    this.valueExpires[id] = 0;
    this.place(id, h);
    this.prev[id] = this.tail;
    this.next[id] = NONE;
    if (this.tail === NONE) this.head = id;
    else this.next[this.tail] = id;
    this.tail = id;
    this.size++;
    this.tidy();
    return id;
  }

  /** Removes entry `id` (from find() or insert()) and frees its bytes. */
  remove(id: number): void {
    const mask = this.slots.length - 1;
    for (let i = (this.hash[id] ?? 0) & mask; ; i = (i + 1) & mask) {
      const at = this.slots[i];
      if (at === id) {
        this.slots[i] = TOMBSTONE;
        this.tombstones++;
        break;
      }
      if (at === EMPTY) throw new RangeError(`EntryTable.remove: no entry ${id}`);
    }
    this.dropValue(id);
    this.slabs.free(this.keySlab[id]!, this.keyLen[id]! * 2);
    const p = this.prev[id]!;
    const n = this.next[id]!;
    if (p === NONE) this.head = n;
    else this.next[p] = n;
    if (n === NONE) this.tail = p;
    else this.prev[n] = p;
    this.free[this.freeCount++] = id;
    this.size--;
    this.tidy();
  }

  /** Makes entry `id` the newest, as if it had just been inserted. */
  touch(id: number): void {
    if (id === this.tail) return;
    const p = this.prev[id]!;
    const n = this.next[id]!;
    if (p === NONE) this.head = n;
    else this.next[p] = n;
    this.prev[n] = p;
    this.prev[id] = this.tail;
    this.next[id] = NONE;
    this.next[this.tail] = id;
    this.tail = id;
  }

  /** True when entry `id` holds a value. */
  hasValue(id: number): boolean {
    return this.valEnc[id] !== Encoding.None;
  }

  /** Entry `id`'s value (it must have one). */
  value(id: number): string {
    const off = this.valOff[id]!;
    const end = off + this.valBytes[id]!;
    // An empty value takes no bytes, and its slab may be gone.
    if (end === off) return '';
    return this.slabs.bytes(this.valSlab[id]!).toString(NAMES[this.valEnc[id]!]!, off, end);
  }

  /**
   * Sets entry `id`'s value, replacing any it had. If Node cannot allocate room this throws,
   * and the entry keeps the value it had.
   */
  setValue(id: number, value: string): void {
    // A stored record is mostly Latin-1 (the gateway's answer bytes, one character each), which
    // is a plain copy; UTF-8 is exact for any other text without surrogates; UTF-16 for the rest.
    const enc: Encoding = !ABOVE_LATIN1.test(value) ? Encoding.Latin1 : !SURROGATE.test(value) ? Encoding.Utf8 : Encoding.Utf16;
    const size = enc === Encoding.Utf8 ? Buffer.byteLength(value, 'utf8') : value.length * (enc === Encoding.Latin1 ? 1 : 2);
    const off = this.slabs.alloc(size);
    const slab = this.slabs.lastSlab;
    this.dropValue(id);
    this.valBytes[id] = this.slabs.bytes(slab).write(value, off, size, NAMES[enc]!);
    this.valSlab[id] = slab;
    this.valOff[id] = off;
    this.valEnc[id] = enc;
    this.tidy();
  }

  /** Drops entry `id`'s value, if it has one. */
  clearValue(id: number): void {
    this.dropValue(id);
    this.tidy();
  }

  private dropValue(id: number): void {
    if (this.valEnc[id] === Encoding.None) return;
    this.slabs.free(this.valSlab[id]!, this.valBytes[id]!);
    this.valEnc[id] = Encoding.None;
    this.valBytes[id] = 0;
  }

  /**
   * Empties the slabs that scattered frees left sparse: their live regions move to the
   * current slab. One pass over the entries per slab emptied, and a slab is reported only once
   * three quarters of it were freed, so the cost per freed byte stays constant.
   */
  private tidy(): void {
    for (let slab = this.slabs.takeSparse(); slab !== -1; slab = this.slabs.takeSparse()) {
      for (let id = this.head; id !== NONE && this.slabs.liveIn(slab) > 0; id = this.next[id]!) {
        if (this.keySlab[id] === slab) {
          this.keyOff[id] = this.move(slab, this.keyOff[id]!, this.keyLen[id]! * 2);
          this.keySlab[id] = this.slabs.lastSlab;
        }
        if (this.valEnc[id] !== Encoding.None && this.valSlab[id] === slab) {
          this.valOff[id] = this.move(slab, this.valOff[id]!, this.valBytes[id]!);
          this.valSlab[id] = this.slabs.lastSlab;
        }
      }
    }
  }

  /** Copies a region out of `slab` into new room and frees it there; returns its new offset. */
  private move(slab: number, off: number, bytes: number): number {
    const to = this.slabs.alloc(bytes);
    this.slabs.bytes(slab).copy(this.slabs.bytes(this.slabs.lastSlab), to, off, off + bytes);
    this.slabs.free(slab, bytes);
    return to;
  }

  /** Empties the table and gives its memory back. */
  clear(): void {
    Object.assign(this, new EntryTable(this.slabBytes));
  }

  private keyIs(id: number, key: string): boolean {
    const len = this.keyLen[id]!;
    if (len !== key.length) return false;
    const units = this.slabs.units(this.keySlab[id]!);
    const base = this.keyOff[id]! >>> 1;
    for (let i = 0; i < len; i++) if (units[base + i] !== key.charCodeAt(i)) return false;
    return true;
  }

  private place(id: number, h: number): void {
    const mask = this.slots.length - 1;
    let i = h & mask;
    while (this.slots[i]! >= 0) i = (i + 1) & mask;
    if (this.slots[i] === TOMBSTONE) this.tombstones--;
    this.slots[i] = id;
  }

  /** Rebuilds the slots for at least `count` entries at most a quarter full, dropping tombstones. */
  private rehash(count: number): void {
    let length = 16;
    while (length < count * 4) length *= 2;
    this.slots = new Int32Array(length).fill(EMPTY);
    this.tombstones = 0;
    for (let id = this.head; id !== NONE; id = this.next[id]!) this.place(id, this.hash[id]!);
  }

  /** Doubles the entry arrays and adds the new ids to the free list. */
  private grow(): void {
    const old = this.capacity;
    const capacity = Math.max(64, old * 2);
    this.token = resized(this.token, capacity);
    this.lockExpires = resized(this.lockExpires, capacity);
    this.valueExpires = resized(this.valueExpires, capacity);
    this.hash = resized(this.hash, capacity);
    this.keySlab = resized(this.keySlab, capacity);
    this.keyOff = resized(this.keyOff, capacity);
    this.keyLen = resized(this.keyLen, capacity);
    this.valSlab = resized(this.valSlab, capacity);
    this.valOff = resized(this.valOff, capacity);
    this.valBytes = resized(this.valBytes, capacity);
    this.valEnc = resized(this.valEnc, capacity);
    this.prev = resized(this.prev, capacity);
    this.next = resized(this.next, capacity);
    this.free = resized(this.free, capacity);
    // Lowest ids on top of the stack: entries fill the arrays from the front.
    for (let id = capacity - 1; id >= old; id--) this.free[this.freeCount++] = id;
    this.capacity = capacity;
  }


}

/** FNV-1a over a string's UTF-16 code units. */
function hashOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h & 0x7fffffff;
}

type TypedArray = Float64Array | Int32Array | Uint8Array;

function resized<T extends TypedArray>(from: T, length: number): T {
  const to = new (from.constructor as new (length: number) => T)(length);
  to.set(from as ArrayLike<number> & T);
  return to;
}
