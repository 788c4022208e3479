// A dataset item's input and expected output as the item editor shows them and reads them back. Pure, for its tests.

/**
 * A value as the item editor shows it, and back: text as it is, any other JSON as JSON; on the way back a text that
 * parses as a JSON object or array is that, any other its text (as a CSV import reads a cell).
 */
export const editable = (value: unknown) =>
  typeof value === 'string' ? value : value === null || value === undefined ? '' : JSON.stringify(value, null, 2)
export function parseEditable(text: string): unknown {
  const trimmed = text.trim()
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return JSON.parse(trimmed)
    } catch {
      // Not JSON after all: the text itself.
    }
  }
  return text
}
