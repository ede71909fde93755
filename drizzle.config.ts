import { defineConfig } from 'drizzle-kit';

// One migration history for both engines, from the tables the modules declare and the platform's audit
// trail and outbox, with every module's declared values in their CHECKs (src/db-schema.ts).
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db-schema.ts',
  out: './drizzle',
});
