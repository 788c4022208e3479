// The URL is the view's state: query-string parameters read and written through the router.
import { useLocation, useSearch } from 'wouter'

/** One query-string parameter of the current view, and a setter that replaces it (null removes it). */
export function useSearchParam(name: string): [string | null, (value: string | null) => void] {
  const search = useSearch()
  const [location, navigate] = useLocation()
  const value = new URLSearchParams(search).get(name)
  const set = (next: string | null) => {
    const params = new URLSearchParams(search)
    if (next === null || next === '') params.delete(name)
    else params.set(name, next)
    const text = params.toString()
    navigate(text === '' ? location : `${location}?${text}`, { replace: true })
  }
  return [value, set]
}
