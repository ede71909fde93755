// What a module gives the app besides its port: its routes and what it does as the app starts and
// stops. app.ts registers every module of its one list through this shape, in the list's order, so a
// module's start and stop are declared beside the rest of it instead of wired by hand.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

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
}

/** The modules among the values of `modules` (those with a name), in its order. */
export function modulesOf(modules: Record<string, unknown>): AppModule[] {
  return Object.values(modules).filter(
    (value): value is AppModule =>
      typeof value === 'object' && value !== null && typeof (value as AppModule).name === 'string',
  );
}
