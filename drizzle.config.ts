// drizzle-kit: generates the SQLite migrations in drizzle/sqlite from src/store/sqlite/tables.ts.
import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'sqlite',
  schema: './src/store/sqlite/tables.ts',
  out: './drizzle/sqlite',
})
