/**
 * The table behind memoryStore, kept off the JavaScript heap: entry fields live in typed
 * arrays and every key and value is copied into one growing Buffer. A Map of strings and
 * entry objects costs nothing per call, but each kept entry is two or three heap objects
 * that every major GC marks, and each finished approval's record survives two scavenges
 * before it settles in the old space. Here an approval leaves no live object behind.
 *
 * Keys are kept as UTF-16 code units and values as Latin-1, UTF-8 or UTF-16, whichever is
 * exact for the value, so both come back exactly as given. Insertion order is a linked list of
 * entry ids, oldest first, for eviction.
 */

const EMPTY = -1;
const TOMBSTONE = -2;
const NONE = -1;
/** Arena regions start on 8-byte boundaries, so a key's code units align for the Uint16 view. */
const ALIGN = 8;
const ABOVE_LATIN1 = /[^\x00-\xff]/;
const SURROGATE = /[\uD800-\uDFFF]/;

/** A value's encoding in the arena. */
const Encoding = { None: 0, Latin1: 1, Utf8: 2, Utf16: 3 } as const;
type Encoding = (typeof Encoding)[keyof typeof Encoding];
/** Buffer's name of each encoding (index 0, no value, is never read). */
const NAMES: readonly BufferEncoding[] = ['latin1', 'latin1', 'utf8', 'utf16le'];
/** Most bytes each encoding writes per UTF-16 code unit. */
const WIDTH = [0, 1, 3, 2] as const;

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
  private keyOff = new Int32Array(0);
  private keyLen = new Int32Array(0);
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

  private arena: Buffer;
  private units: Uint16Array;
  private used = 0;
  private dead = 0;

  /** @param arenaBytes first size of the byte arena (it doubles as needed); a multiple of 8 */
  constructor(private readonly arenaBytes = 64 * 1024) {
    this.arena = Buffer.allocUnsafeSlow(align(arenaBytes));
    this.units = new Uint16Array(this.arena.buffer, this.arena.byteOffset, this.arena.length >>> 1);
  }

  /** Number of entries. */
  size = 0;
  /** The oldest entry's id, or -1. */
  head = NONE;
  private tail = NONE;

  /** Bytes the arena holds now (live, dead and free). */
  get arenaSize(): number {
    return this.arena.length;
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
    if ((this.size + this.tombstones + 1) * 2 > this.slots.length) this.rehash(this.size + 1);
    if (this.freeCount === 0) this.grow();
    const id = this.free[--this.freeCount]!;
    const h = hashOf(key);
    const off = this.reserve(key.length * 2);
    const units = this.units;
    const base = off >>> 1;
    for (let i = 0; i < key.length; i++) units[base + i] = key.charCodeAt(i);
    this.used = off + align(key.length * 2);
    this.hash[id] = h;
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
    return id;
  }

  /** Removes entry `id` and frees its bytes. */
  remove(id: number): void {
    const mask = this.slots.length - 1;
    for (let i = this.hash[id]! & mask; ; i = (i + 1) & mask) {
      if (this.slots[i] === id) {
        this.slots[i] = TOMBSTONE;
        this.tombstones++;
        break;
      }
    }
    this.clearValue(id);
    this.dead += align(this.keyLen[id]! * 2);
    const p = this.prev[id]!;
    const n = this.next[id]!;
    if (p === NONE) this.head = n;
    else this.next[p] = n;
    if (n === NONE) this.tail = p;
    else this.prev[n] = p;
    this.free[this.freeCount++] = id;
    this.size--;
  }

  /** True when entry `id` holds a value. */
  hasValue(id: number): boolean {
    return this.valEnc[id] !== Encoding.None;
  }

  /** Entry `id`'s value (it must have one). */
  value(id: number): string {
    const off = this.valOff[id]!;
    const end = off + this.valBytes[id]!;
    return this.arena.toString(NAMES[this.valEnc[id]!]!, off, end);
  }

  /** Sets entry `id`'s value, replacing any it had. */
  setValue(id: number, value: string): void {
    this.clearValue(id);
    // A stored record is mostly Latin-1 (the gateway's answer bytes, one character each), which
    // is a plain copy; UTF-8 is exact for any other text without surrogates; UTF-16 for the rest.
    const enc: Encoding = !ABOVE_LATIN1.test(value) ? Encoding.Latin1 : !SURROGATE.test(value) ? Encoding.Utf8 : Encoding.Utf16;
    // UTF-8 may take fewer bytes than reserved; the unused tail is given back below.
    const off = this.reserve(value.length * WIDTH[enc]);
    const bytes = this.arena.write(value, off, NAMES[enc]!);
    this.used = off + align(bytes);
    this.valOff[id] = off;
    this.valBytes[id] = bytes;
    this.valEnc[id] = enc;
  }

  /** Drops entry `id`'s value, if it has one. */
  clearValue(id: number): void {
    if (this.valEnc[id] === Encoding.None) return;
    this.dead += align(this.valBytes[id]!);
    this.valEnc[id] = Encoding.None;
    this.valBytes[id] = 0;
  }

  /** Empties the table and gives its memory back. */
  clear(): void {
    Object.assign(this, new EntryTable(this.arenaBytes));
  }

  private keyIs(id: number, key: string): boolean {
    const len = this.keyLen[id]!;
    if (len !== key.length) return false;
    const units = this.units;
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
    this.keyOff = resized(this.keyOff, capacity);
    this.keyLen = resized(this.keyLen, capacity);
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

  /**
   * Makes room for `bytes` at the arena's end and returns where they go. When they do not
   * fit, the live regions move, in insertion order, into a fresh arena twice the size of
   * what is live then (never below the first size): the arena holds at most twice the live
   * bytes, it shrinks after mass removal, and each byte written is copied at most once more
   * on average.
   */
  private reserve(bytes: number): number {
    if (this.used + bytes <= this.arena.length) return this.used;
    const live = this.used - this.dead;
    const length = Math.max(align(this.arenaBytes), align(2 * (live + bytes)));
    if (length > 0x7fff_fff8) throw new RangeError('memoryStore: more than 2 GiB of keys and values');
    const from = this.arena;
    const to = Buffer.allocUnsafeSlow(length);
    let at = 0;
    for (let id = this.head; id !== NONE; id = this.next[id]!) {
      const keyBytes = this.keyLen[id]! * 2;
      from.copy(to, at, this.keyOff[id]!, this.keyOff[id]! + keyBytes);
      this.keyOff[id] = at;
      at += align(keyBytes);
      if (this.valEnc[id] !== Encoding.None) {
        const valBytes = this.valBytes[id]!;
        from.copy(to, at, this.valOff[id]!, this.valOff[id]! + valBytes);
        this.valOff[id] = at;
        at += align(valBytes);
      }
    }
    this.arena = to;
    this.units = new Uint16Array(to.buffer, to.byteOffset, to.length >>> 1);
    this.used = at;
    this.dead = 0;
    return at;
  }
}

/** FNV-1a over a string's UTF-16 code units. */
function hashOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h & 0x7fffffff;
}

function align(bytes: number): number {
  return (bytes + ALIGN - 1) & ~(ALIGN - 1);
}

type TypedArray = Float64Array | Int32Array | Uint8Array;

function resized<T extends TypedArray>(from: T, length: number): T {
  const to = new (from.constructor as new (length: number) => T)(length);
  to.set(from as ArrayLike<number> & T);
  return to;
}
