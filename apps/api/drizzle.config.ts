import { defineConfig } from 'drizzle-kit';

// `pnpm db:generate` writes a new versioned SQL migration into drizzle/ from the schema; no database needed.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema/index.ts',
  out: './drizzle',
});
