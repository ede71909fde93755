// One inbound provider, declared once (decision 245): its route as the contract and the OpenAPI
// document show it, the variable holding its secret, how a delivery proves where it comes from
// (security schemes and signature), what of it is stored (redaction), how it is named
// (identification) and what it causes (effects), given only the ports it declares. The receiving
// mechanics (admission, signed-body reading, dedupe, the refusal log) are shared and read these.
import type { TSchema } from 'typebox';
import type { SecurityScheme } from '../../../platform/http/openapi.ts';
import type { SignatureCheck, Verdict } from '../signatures.ts';
import type {
  DeliveryIdentity,
  EffectContext,
  Headers,
  HookAnswer,
  InboundDelivery,
  Outcome,
  PortName,
} from './provider.ts';

export const MiB = 1024 * 1024;

/** Errors a route answers in a shape of its own (the auth hook's), instead of `{"detail": ...}`. */
export interface OwnErrors {
  schema: TSchema;
  statuses: readonly number[];
  /** The body of an error: `detail` as our own answers carry it (a string, or a 422's list). */
  body(status: number, detail: unknown): Record<string, unknown>;
}

export interface ProviderRoute {
  url: string;
  /** The client method name of the operation (OpenAPI operationId). */
  operationId: string;
  summary: string;
  /** What it does; the shared rules of every receiver follow it in the document. */
  description: string;
  headers: TSchema;
  body?: TSchema;
  response?: TSchema;
  errors?: OwnErrors;
  /** Real providers' header names standing in for the spec's ones, before validation looks: from → to. */
  headerAliases?: Readonly<Record<string, string>>;
}

export interface WebhookProviderDeclaration<Id extends string = string, P extends PortName = PortName> {
  provider: Id;
  /** Human name used in answers and messages, e.g. `Code host`. */
  name: string;
  /** The environment variable holding its secret; config reads it from the declared list. */
  secretVariable: string;
  route: ProviderRoute;
  /**
   * The largest body it reads (decision 005); a platform limit set higher (BODY_LIMIT_BYTES) wins.
   * It bounds what a sender with a wrong signature can make us buffer (never parse) before the 401.
   */
  bodyLimit: number;
  /** How a delivery proves where it comes from, by scheme name: any one of them (in this order). */
  security: Readonly<Record<string, SecurityScheme>>;
  /** What of the parsed body is stored: never credentials. */
  redact(body: Record<string, unknown>): unknown;
  /** From the headers alone: a verdict already, or the signature the body must carry (checked as it arrives). */
  signature(headers: Headers, secret: string): SignatureCheck;
  /** A check of the verified body once parsed (Linear signs its send time inside the body). */
  checkBody?(body: Record<string, unknown>, now: Date): Verdict;
  identify(delivery: InboundDelivery): DeliveryIdentity;
  /** The ports its effects use; they are given these alone. */
  ports: readonly P[];
  /** The effects of a first (or previously failed) delivery, and what they came to. */
  apply(context: EffectContext<P>): Promise<Outcome>;
  /** The answer to a delivery seen before; it must cause nothing. Default: `duplicate`. */
  replay?(context: EffectContext<P>): Promise<HookAnswer | void>;
}

/** Checks a declaration against its type while keeping its literal provider id and ports. */
export const defineWebhookProvider = <const Id extends string, P extends PortName>(
  declaration: WebhookProviderDeclaration<Id, P>,
): WebhookProviderDeclaration<Id, P> => declaration;
