// The annotator: the name a person gives themselves once in this browser (kept in localStorage), the `author` of the
// scores they give and the holder of the queue items they open.
import { useSyncExternalStore } from 'react'

const KEY = 'loupe.annotator'
const listeners = new Set<() => void>()

function read(): string | null {
  try {
    return localStorage.getItem(KEY)
  } catch {
    return null
  }
}

let current = read()

export const annotator = {
  get: () => current,
  set(name: string | null) {
    current = name === null || name.trim() === '' ? null : name.trim()
    try {
      if (current === null) localStorage.removeItem(KEY)
      else localStorage.setItem(KEY, current)
    } catch {
      // Storage may be off: the name then lives until the page is closed.
    }
    for (const listener of listeners) listener()
  },
  subscribe(listener: () => void) {
    listeners.add(listener)
    return () => {
      listeners.delete(listener)
    }
  },
}

export const useAnnotator = () => useSyncExternalStore(annotator.subscribe, annotator.get)
