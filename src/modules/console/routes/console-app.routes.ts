// The console's pages and files: every /console path answers the app shell (the browser routes
// within it, so a deep link or a reload works), and /console/assets/ the hashed files it names.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { notFound, unavailable } from '../../../platform/http/errors.ts';
import type { ConsoleFiles } from '../console-files.ts';
import { CONSOLE_CSP } from '../console.domain.ts';

const AssetParams = Type.Object({ file: Type.String({ maxLength: 200 }) });

export function consoleAppRoutes(deps: { files: ConsoleFiles }): FastifyPluginAsyncTypebox {
  const { files } = deps;
  const shell = async (reply: FastifyReply) => {
    const html = await files.shell();
    if (!html) throw unavailable('The console is not built: run npm run build');
    return (
      reply
        .header('content-security-policy', CONSOLE_CSP)
        // The shell names the current hashed files: always revalidated, never served stale.
        .header('cache-control', 'no-cache')
        .type('text/html; charset=utf-8')
        .send(html)
    );
  };
  return async function routes(app) {
    app.get('/console', { schema: { hide: true } }, async (_request, reply) => shell(reply));
    app.get('/console/*', { schema: { hide: true } }, async (_request, reply) => shell(reply));
    app.get('/console/assets/:file', { schema: { hide: true, params: AssetParams } }, async (request, reply) => {
      const file = await files.asset(request.params.file);
      if (!file) throw notFound();
      return (
        reply
          .header('content-security-policy', CONSOLE_CSP)
          // Names carry the content's hash: a changed file is a new name.
          .header('cache-control', 'public, max-age=31536000, immutable')
          .type(file.type)
          .send(file.body)
      );
    });
  };
}
