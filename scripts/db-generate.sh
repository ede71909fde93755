#!/usr/bin/env bash
# Regenerates the migrations from the Drizzle schema. Until the first release the history is kept
# as one initial migration, so this rewrites it; afterwards, drop the rm and let drizzle-kit append.
# The routines (src/platform/db/*.routines.sql, then those each module's declaration lists: the triggers
# that keep derived figures) follow as a second migration, written from those files, which are their
# source; scripts/routines.ts names them. The tables come from the declarations too (src/db-schema.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
exec 9>"${TMPDIR:-/tmp}/trading-platform-drizzle.lock"
flock 9
files=$(node --import tsx scripts/routines.ts)
rm -rf drizzle
./node_modules/.bin/drizzle-kit generate --name init
./node_modules/.bin/drizzle-kit generate --custom --name routines
routines=drizzle/0001_routines.sql
: > "$routines"
for file in $files; do
  [ -s "$routines" ] && printf '\n--> statement-breakpoint\n' >> "$routines"
  printf -- '-- from %s\n' "$file" >> "$routines"
  cat "$file" >> "$routines"
done
# The kept figures' triggers, recomputations and first fills, generated from their declarations
# (<module>.figures.ts, decision 240), after the routines files they may use.
printf '\n--> statement-breakpoint\n' >> "$routines"
./node_modules/.bin/tsx scripts/kept-figures-sql.ts >> "$routines"
