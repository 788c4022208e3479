// Lookups keyed by data read own properties only: a key such as `constructor`, `toString` or `__proto__` sent by a
// client must never reach a member every object inherits, nor replace an object's prototype.

/** The value of `obj`'s own property `key`, else undefined (never an inherited member). */
export function own<T>(obj: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined
}

/** Sets an own, enumerable property, whatever the key (`__proto__` included, which plain assignment would not). */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true })
}
