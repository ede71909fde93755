// An account-stream event as its publisher declares it: its type (written nowhere else), who gets it,
// and the TypeBox schema of its data. Each publishing module declares its events once, beside itself
// (`<module>.events.ts`) and lists them in its declaration; src/declarations.ts gathers them and the
// streams module delivers them. Here, below the modules, so that a publisher needs no value of the streams module.
import type { Static, TSchema } from 'typebox';

/** `user`: only that user's streams get the event; `admins`: every admin's stream. */
export const AUDIENCES = ['user', 'admins'] as const;
export type Audience = (typeof AUDIENCES)[number];

export interface StreamEventDefinition<
  Type extends string = string,
  To extends Audience = Audience,
  Data extends TSchema = TSchema,
> {
  /** The SSE `event:` field and the envelope's `type`, e.g. `balance.synced`. */
  type: Type;
  audience: To;
  /** The title of its data's schema in the OpenAPI document, e.g. `BalanceSyncedData`. */
  title: string;
  /** What happened, for the OpenAPI document. */
  description: string;
  /** Schema of the envelope's `data`; publishing is typed by it. */
  data: Data;
}

/** Identity at run time; keeps the type's and the audience's literal types for the publisher's typing. */
export function defineStreamEvent<const Type extends string, const To extends Audience, Data extends TSchema>(
  event: StreamEventDefinition<Type, To, Data>,
): StreamEventDefinition<Type, To, Data> {
  return event;
}

/** A list of declarations: a module's, or every module's together. */
export type StreamEventList = readonly StreamEventDefinition[];

/** The types of the events of a list, those of one audience when it is given. */
export type StreamEventType<Events extends StreamEventList, To extends Audience = Audience> = Extract<
  Events[number],
  { audience: To }
>['type'];

/** What a publication of this type carries as `data`. */
export type StreamEventData<Events extends StreamEventList, Type extends string> = Static<
  Extract<Events[number], { type: Type }>['data']
>;

/** Refuses a list in which two declarations share a type or a schema title. */
export function checkStreamEvents(events: StreamEventList): void {
  for (const key of ['type', 'title'] as const) {
    const seen = new Set<string>();
    for (const event of events) {
      if (seen.has(event[key])) throw new Error(`stream event ${key} declared twice: ${event[key]}`);
      seen.add(event[key]);
    }
  }
}
