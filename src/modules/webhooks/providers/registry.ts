// Every inbound provider, each declared once in its own file (decision 245). From this list come
// the receiving routes (in this order), the admission gate's and the pipeline's providers, the
// secret variables config reads, the security schemes of the OpenAPI document and the database's
// check of webhook_deliveries.provider. Adding a provider is its file and one line here.
import type { SecurityScheme } from '../../../platform/http/openapi.ts';
import { authproviderProvider } from './authprovider.provider.ts';
import { codehostProvider } from './codehost.provider.ts';
import { databaseProvider } from './database.provider.ts';
import type { WebhookProviderDeclaration } from './declaration.ts';
import { edgeProvider } from './edge.provider.ts';
import { errormonProvider } from './errormon.provider.ts';
import { mailerProvider } from './mailer.provider.ts';
import { paymentsProvider } from './payments.provider.ts';
import { trackerProvider } from './tracker.provider.ts';

const DECLARED = [
  codehostProvider,
  paymentsProvider,
  edgeProvider,
  trackerProvider,
  errormonProvider,
  databaseProvider,
  authproviderProvider,
  mailerProvider,
] as const;

export type WebhookProvider = (typeof DECLARED)[number]['provider'];

/** A provider's declaration as the shared mechanics read it, whatever ports it declared. */
export type ProviderDeclaration = WebhookProviderDeclaration<WebhookProvider>;

export const WEBHOOK_PROVIDER_DECLARATIONS: readonly ProviderDeclaration[] = DECLARED;

export const WEBHOOK_PROVIDERS: readonly WebhookProvider[] = DECLARED.map((declaration) => declaration.provider);

/** Each provider's declaration by its name. */
export const webhookProviders = Object.fromEntries(DECLARED.map((d) => [d.provider, d])) as Readonly<
  Record<WebhookProvider, ProviderDeclaration>
>;

/** The environment variables holding the providers' secrets, which the entry points give config to read. */
export const WEBHOOK_SECRET_VARIABLES = DECLARED.map((declaration) => declaration.secretVariable);

/** Each provider's secret, from the variables config read (by the names the declarations give). */
export function webhookSecrets(
  read: Readonly<Record<string, string | undefined>>,
): Readonly<Record<WebhookProvider, string | undefined>> {
  return Object.fromEntries(DECLARED.map((declared) => [declared.provider, read[declared.secretVariable]])) as Record<
    WebhookProvider,
    string | undefined
  >;
}

/** Every provider's security schemes, in the list's order, for the OpenAPI document. */
export const WEBHOOK_SECURITY_SCHEMES: Readonly<Record<string, SecurityScheme>> = Object.fromEntries(
  DECLARED.flatMap((declaration) => Object.entries(declaration.security)),
);

function checkDeclarations(): void {
  const seen = new Set<string>();
  for (const name of [
    ...WEBHOOK_PROVIDERS,
    ...WEBHOOK_SECRET_VARIABLES,
    ...DECLARED.flatMap((d) => Object.keys(d.security)),
  ]) {
    if (seen.has(name)) throw new Error(`webhook providers declare ${name} twice`);
    seen.add(name);
  }
}
checkDeclarations();
