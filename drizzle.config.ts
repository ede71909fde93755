import { defineConfig } from 'drizzle-kit';

// One migration history for both engines; module tables are found by their file suffix.
export default defineConfig({
  dialect: 'postgresql',
  schema: ['./src/platform/db/schema.ts', './src/modules/*/*.tables.ts'],
  out: './drizzle',
});
