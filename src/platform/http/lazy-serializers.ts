// Response serializers built when a route first answers with a status, not at start.
// fast-json-stringify writes one function per route and status, which made up most of the time to
// ready for the ~100 operations; a process answers a fraction of them, and the first answer of each
// pays a few milliseconds instead (decision 016).
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;

export function lazySerializerFactory(): SerializerFactory {
  const eager = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = eager(externalSchemas, options);
    return (route) => {
      let serialize: ((doc: unknown) => string) | undefined;
      return (doc) => (serialize ??= compile(route))(doc);
    };
  };
}
