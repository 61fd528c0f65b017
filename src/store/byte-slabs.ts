/**
 * The byte storage behind EntryTable: regions bump-allocated in Buffers of a fixed size
 * (slabs), a region never spanning two. Each slab counts its live bytes; a slab whose
 * regions are all freed is dropped (or kept for reuse), so when entries go roughly in the
 * order they came, as memoryStore evicts them, memory follows what is live and nothing is
 * ever copied. A slab left mostly empty by scattered frees is reported as sparse, and its
 * owner moves the few live regions out (see EntryTable.tidy): at most a slab is copied at a
 * time, so there is no pause that grows with the store.
 */

/** Regions start on 8-byte boundaries, so a key's code units align for the Uint16 view. */
export const ALIGN = 8;
/** A slab is sparse, and worth emptying, once less than this share of it is live. */
const SPARSE = 1 / 4;
/** Empty slabs kept for reuse rather than dropped. */
const POOL = 2;

/** `bytes` rounded up to a multiple of ALIGN (plain arithmetic: sizes may pass 2^31). */
export function align(bytes: number): number {
  return Math.ceil(bytes / ALIGN) * ALIGN;
}

/** Slabs of bytes; regions are addressed by slab index and offset. */
export class ByteSlabs {
  /** The slab the last alloc() used. */
  lastSlab = -1;

  private slabs: Array<Buffer | undefined> = [];
  private views: Array<Uint16Array | undefined> = [];
  private live: number[] = [];
  private freeIndexes: number[] = [];
  private pool: Buffer[] = [];
  private current = -1;
  private used = 0;
  private total = 0;
  private sparse: number[] = [];

  /** @param slabBytes size of a slab; a region larger than half of it gets a slab of its own */
  constructor(private readonly slabBytes: number) {}

  /** Bytes held in slabs now (live, and freed but not yet reused; the pool aside). */
  get size(): number {
    return this.total;
  }

  /** Slab `slab` as bytes. */
  bytes(slab: number): Buffer {
    return this.slabs[slab]!;
  }

  /** Slab `slab` as UTF-16 code units (offsets are in bytes: halve them). */
  units(slab: number): Uint16Array {
    return this.views[slab]!;
  }

  /** Room for `bytes`: returns the offset, in slab `lastSlab`. Throws only when Node cannot allocate. */
  alloc(bytes: number): number {
    const size = align(bytes);
    if (size > this.slabBytes / 2) {
      this.lastSlab = this.open(size);
      this.live[this.lastSlab] = size;
      return 0;
    }
    if (this.current === -1 || this.used + size > this.slabBytes) {
      const next = this.open(this.slabBytes);
      this.retire(this.current);
      this.current = next;
      this.used = 0;
    }
    const off = this.used;
    this.used += size;
    this.live[this.current]! += size;
    this.lastSlab = this.current;
    return off;
  }

  /** Live bytes in `slab` (0 once it is closed). */
  liveIn(slab: number): number {
    return this.slabs[slab] === undefined ? 0 : this.live[slab]!;
  }

  /** Gives back a region of `bytes` in `slab`. */
  free(slab: number, bytes: number): void {
    const left = (this.live[slab]! -= align(bytes));
    if (slab === this.current) return;
    if (left === 0) this.close(slab);
    else if (left < this.slabs[slab]!.length * SPARSE && !this.sparse.includes(slab)) this.sparse.push(slab);
  }

  /** A slab to empty (move its live regions elsewhere, then free them), or -1. */
  takeSparse(): number {
    for (;;) {
      const slab = this.sparse.pop();
      if (slab === undefined) return -1;
      // It may have been emptied since it was reported, and its index reused.
      if (this.slabs[slab] !== undefined && this.live[slab]! > 0 && slab !== this.current) return slab;
    }
  }

  private open(length: number): number {
    const reuse = length === this.slabBytes ? this.pool.pop() : undefined;
    const buffer = reuse ?? Buffer.allocUnsafeSlow(length);
    const slab = this.freeIndexes.pop() ?? this.slabs.length;
    this.slabs[slab] = buffer;
    this.views[slab] = new Uint16Array(buffer.buffer, buffer.byteOffset, buffer.length >>> 1);
    this.live[slab] = 0;
    this.total += buffer.length;
    return slab;
  }

  /** The current slab is full: from now on, frees in it may drop or report it. */
  private retire(slab: number): void {
    if (slab === -1) return;
    this.current = -1;
    const left = this.live[slab]!;
    if (left === 0) this.close(slab);
    else if (left < this.slabBytes * SPARSE) this.sparse.push(slab);
  }

  private close(slab: number): void {
    const buffer = this.slabs[slab]!;
    if (buffer.length === this.slabBytes && this.pool.length < POOL) this.pool.push(buffer);
    this.slabs[slab] = undefined;
    this.views[slab] = undefined;
    this.total -= buffer.length;
    this.freeIndexes.push(slab);
  }
}
