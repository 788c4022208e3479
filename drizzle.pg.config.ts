// drizzle-kit: generates the PostgreSQL migrations in drizzle/postgres from src/store/postgres/tables.ts.
import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/store/postgres/tables.ts',
  out: './drizzle/postgres',
})
