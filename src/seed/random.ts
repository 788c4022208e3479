// Randomness for the synthetic data: a seedable generator (the same seed gives the same data set) and the few
// draws the catalogue and the factory make from it. Not for secrets: keys come from the CSPRNG.

/** mulberry32: a tiny, fast, seedable PRNG returning floats in [0, 1). Good enough for synthetic data, not for secrets. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export type Weighted<T> = ReadonlyArray<readonly [T, number]>

export class Rng {
  private spare: number | null = null
  constructor(readonly next: () => number) {}

  int(n: number): number {
    return Math.floor(this.next() * n)
  }
  between(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }
  chance(p: number): boolean {
    return this.next() < p
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T
  }
  weighted<T>(items: Weighted<T>): T {
    let total = 0
    for (const [, w] of items) total += w
    let u = this.next() * total
    for (const [item, w] of items) {
      u -= w
      if (u < 0) return item
    }
    return (items[items.length - 1] as readonly [T, number])[0]
  }
  /** Standard normal (Box–Muller, the second value kept for the next call). */
  normal(): number {
    if (this.spare !== null) {
      const s = this.spare
      this.spare = null
      return s
    }
    const u = 1 - this.next()
    const v = this.next()
    const r = Math.sqrt(-2 * Math.log(u))
    this.spare = r * Math.sin(2 * Math.PI * v)
    return r * Math.cos(2 * Math.PI * v)
  }
  /** Log-normal with the given median and log-space sigma. */
  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal())
  }
  uint32(): number {
    return Math.floor(this.next() * 4294967296) >>> 0
  }
  hex(chars: number): string {
    let s = ''
    while (s.length < chars) s += this.uint32().toString(16).padStart(8, '0')
    return s.slice(0, chars)
  }
}

const HEX2 = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))
const hex16 = (n: number) => (HEX2[(n >>> 8) & 0xff] as string) + (HEX2[n & 0xff] as string)
const hex32 = (n: number) => hex16(n >>> 16) + hex16(n & 0xffff)

/** A UUIDv7 whose timestamp is `ms` and whose 74 random bits come from `rng`, so ids sort like created_at. */
export function uuidv7At(ms: number, rng: Rng): string {
  const ts = ms.toString(16).padStart(12, '0')
  const a = rng.uint32()
  const b = rng.uint32()
  const c = rng.uint32()
  return `${ts.slice(0, 8)}-${ts.slice(8, 12)}-7${hex16(a & 0xfff).slice(1)}-${hex16(0x8000 | ((a >>> 12) & 0x3fff))}-${hex32(b)}${hex16(c & 0xffff)}`
}
