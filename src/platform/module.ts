// What a module contributes, in two shapes. Its declaration (`ModuleDeclaration`, `<module>.module.ts`,
// re-exported by its index.ts) is a static value: its tables, audit actions, outbox kinds, stream
// events, job definitions, kept figures and routines, read without a Platform by drizzle-kit, the
// scripts and the CLI; src/declarations.ts lists every module's once and derives each list the app
// and the database use from them (decision 230). Its instance (`AppModule`, what createXModule
// returns) adds what needs the running platform: its routes, its jobs bound to its dependencies and
// what it does as the app starts and stops. app.ts registers every module of its one list through this
// shape, in the list's order, so a module's start and stop are declared beside the rest of it instead
// of wired by hand.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { DerivedFigures } from './db/derived-figures.ts';
import type { AnyJobDefinition, BoundJob } from './jobs.ts';
import type { StreamEventList } from './stream-events.ts';

export interface ModuleHooks {
  /** Once the app is ready, before it listens (also under inject()): seeding, first work. */
  ready?(): Promise<void>;
  /** When the server starts listening, never under inject(): timers and outbound streams. */
  listening?(): void;
  /** Before the server waits for in-flight requests; the open SSE streams are ended just before. */
  closing?(): Promise<void>;
  /** Once no request is in flight, before the database closes: stop and wait for background work. */
  closed?(): Promise<void>;
}

export interface AppModule {
  name: string;
  /** The module's routes, typed from their TypeBox schemas. */
  routes?: FastifyPluginAsyncTypebox;
  hooks?: ModuleHooks;
  /** Its declared jobs, bound to its dependencies; the jobs module runs them. */
  jobs?: readonly BoundJob[];
}

/** Every module's declared values together: what a table built from them (a CHECK) needs. */
export interface DeclaredSets {
  auditActions: readonly string[];
  outboxKinds: readonly string[];
  eventTypes: readonly string[];
  jobNames: readonly string[];
}

/**
 * The exports of one `<module>.tables.ts` (`import * as tables`), or a function building them from
 * every module's declared values, for a table whose CHECK holds them (the job runs' names, the stored
 * events' types).
 */
export type TableFile = Readonly<Record<string, unknown>> | ((sets: DeclaredSets) => Readonly<Record<string, unknown>>);

export interface ModuleDeclaration {
  /** The module's folder under src/modules/. */
  readonly name: string;
  /** Each of its `*.tables.ts`, in the order of their file names. */
  readonly tables?: readonly TableFile[];
  /** Its audit actions (`<module>.audit.ts`): the values `audit_log.action` may hold. */
  readonly auditActions?: readonly string[];
  /** Its outbox kinds (`<module>.outbox.ts`): the handlers the worker may claim a row for. */
  readonly outboxKinds?: readonly string[];
  /** The account-stream events it publishes (`<module>.events.ts`). */
  readonly events?: StreamEventList;
  /** Its scheduled jobs (`<job>.job.ts`); the module binds them when it is created. */
  readonly jobs?: readonly AnyJobDefinition[];
  /** The figures the database keeps for it as rows are written (`<module>.figures.ts`). */
  readonly figures?: readonly DerivedFigures[];
  /** Its `*.routines.sql` files, by file name in its folder: its hand-written routines. */
  readonly routines?: readonly string[];
}

/** Identity at run time; keeps the literal types of the lists (job names, event types, actions). */
export function defineModule<const Declaration extends ModuleDeclaration>(declaration: Declaration): Declaration {
  return declaration;
}

type Item<List> = List extends readonly (infer Value)[] ? Value : never;
/** The values every declaration of `Modules` holds under `Key`, as one union. */
export type DeclaredOf<
  Modules extends readonly ModuleDeclaration[],
  Key extends keyof ModuleDeclaration,
> = Modules[number] extends infer Module ? (Module extends { [K in Key]: infer List } ? Item<List> : never) : never;

/**
 * Every declaration's values under `key`, in the declarations' order; a value declared twice (by two
 * modules or one) is refused, by `identity` when the values are objects (an event's type).
 */
export function gather<const Modules extends readonly ModuleDeclaration[], Key extends keyof ModuleDeclaration>(
  modules: Modules,
  key: Key,
  identity: (value: DeclaredOf<Modules, Key>) => unknown = (value) => value,
): DeclaredOf<Modules, Key>[] {
  const values: DeclaredOf<Modules, Key>[] = [];
  const owners = new Map<unknown, string>();
  for (const module of modules) {
    const declared = (module[key] ?? []) as readonly DeclaredOf<Modules, Key>[];
    for (const value of declared) {
      const id = identity(value);
      const owner = owners.get(id);
      if (owner !== undefined) throw new Error(`${key}: ${String(id)} declared twice (${owner}, ${module.name})`);
      owners.set(id, module.name);
      values.push(value);
    }
  }
  return values;
}

/** The modules among the values of `modules` (those with a name), in its order. */
export function modulesOf(modules: Record<string, unknown>): AppModule[] {
  return Object.values(modules).filter(
    (value): value is AppModule =>
      typeof value === 'object' && value !== null && typeof (value as AppModule).name === 'string',
  );
}
