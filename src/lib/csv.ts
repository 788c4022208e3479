// CSV (RFC 4180) read into rows of fields: quoted fields may hold commas, quotes ("") and line breaks; CRLF or LF end a
// row. What an import of a dataset reads (the export writes through csvRow, src/services/export.ts).

/** The rows of a CSV text, each its fields; a trailing line break ends the last row, it does not start another. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let field = ''
  let quoted = false
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0 // a byte-order mark is not part of the first field
  const endRow = () => {
    row.push(field)
    rows.push(row)
    row = []
    field = ''
  }
  for (; i < text.length; i++) {
    const c = text[i]
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"'
          i++
        } else quoted = false
      } else field += c
    } else if (c === '"' && field === '') quoted = true
    else if (c === ',') {
      row.push(field)
      field = ''
    } else if (c === '\n') endRow()
    else if (c === '\r') {
      if (text[i + 1] === '\n') i++
      endRow()
    } else field += c
  }
  if (quoted) throw new Error('a quoted field is not closed')
  if (field !== '' || row.length > 0) endRow()
  return rows
}
