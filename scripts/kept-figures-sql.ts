// Prints the routines of every table of figures the database keeps, generated from their declarations
// (each module's <module>.figures.ts; decision 240): scripts/db-generate.sh adds them to the routines
// migration. The list is the one db:reconcile checks (the modules' declarations), so what is kept is
// what is reconciled.
import { DERIVED_FIGURES } from '../src/declarations.ts';
import { keptFiguresSql } from '../src/platform/db/kept-figures.ts';

process.stdout.write(`${keptFiguresSql(DERIVED_FIGURES)}\n`);
