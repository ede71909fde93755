import { defineConfig } from 'drizzle-kit';

// One migration history for both engines; module tables are found by their file suffix, the audit
// trail and the outbox in shared-tables.ts (with every module's actions and kinds in their CHECKs).
export default defineConfig({
  dialect: 'postgresql',
  schema: ['./src/shared-tables.ts', './src/modules/*/*.tables.ts'],
  out: './drizzle',
});
