// Assertions on the contract's error bodies, shared by the admin test files.
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';

export interface Issue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
  ctx?: Record<string, unknown>;
}

/** A 422 whose issues include one at `loc` of `type`; returns that issue for further checks. */
export function assertIssue(response: LightMyRequestResponse, loc: (string | number)[], type: string): Issue {
  assert.equal(response.statusCode, 422, `expected 422, got ${response.statusCode}: ${response.body}`);
  const detail = response.json<{ detail: Issue[] }>().detail;
  assert.ok(Array.isArray(detail), 'detail is the list of issues');
  const issue = detail.find((d) => JSON.stringify(d.loc) === JSON.stringify(loc));
  assert.ok(issue, `no issue at ${JSON.stringify(loc)} in ${response.body}`);
  assert.equal(issue.type, type, `issue at ${JSON.stringify(loc)}: ${JSON.stringify(issue)}`);
  assert.equal(typeof issue.msg, 'string');
  return issue;
}

export function assertDetail(response: LightMyRequestResponse, status: number, detail?: string): void {
  assert.equal(response.statusCode, status, `expected ${status}, got ${response.statusCode}: ${response.body}`);
  const body = response.json<{ detail: unknown }>();
  assert.equal(typeof body.detail, 'string');
  if (detail !== undefined) assert.equal(body.detail, detail);
}
