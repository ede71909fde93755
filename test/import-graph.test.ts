// The import graph of src/: config reads the environment and imports nothing of ours beyond config,
// the platform imports only itself and config (never a module), and no file reaches itself through
// its imports. A cycle of type imports costs nothing at run time but still ties two files so that
// neither can be read, moved or tested without the other (issue 38: portfolio.repository ↔
// ledger.service, config.ts → platform/http); both kinds are refused.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const SRC = path.resolve(import.meta.dirname, '../src');

interface Edge {
  target: string;
  /** `import type`, `export type`, or braces naming types only: gone once compiled. */
  typeOnly: boolean;
}

/** Every static import and re-export of a file of src/, by importing file (paths relative to src/). */
function importGraph(): Map<string, Edge[]> {
  const graph = new Map<string, Edge[]>();
  for (const entry of readdirSync(SRC, { recursive: true, encoding: 'utf8' })) {
    if (!entry.endsWith('.ts') || entry.endsWith('.test.ts')) continue;
    const file = path.join(SRC, entry);
    const edges: Edge[] = [];
    const source = readFileSync(file, 'utf8');
    for (const [, typeKeyword, names, specifier] of source.matchAll(
      /(?:^|\n)\s*(?:import|export)(\s+type)?\b([^;]*?)\bfrom\s+'(\.[^']+)'/g,
    )) {
      const target = path.resolve(path.dirname(file), specifier!);
      if (!existsSync(target)) continue;
      const braces = /^\s*\{([^}]*)\}\s*$/.exec(names!);
      const typeNames =
        braces !== null &&
        braces[1]!
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean)
          .every((name) => name.startsWith('type '));
      edges.push({ target: path.relative(SRC, target), typeOnly: typeKeyword !== undefined || typeNames });
    }
    graph.set(path.relative(SRC, file), edges);
  }
  return graph;
}

/** The files that reach themselves through the edges kept: each strongly connected group of two or more. */
function cycles(graph: Map<string, Edge[]>, keep: (edge: Edge) => boolean): string[][] {
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (file: string) => {
    order.set(file, order.size);
    low.set(file, order.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const edge of (graph.get(file) ?? []).filter(keep)) {
      if (!order.has(edge.target)) {
        visit(edge.target);
        low.set(file, Math.min(low.get(file)!, low.get(edge.target)!));
      } else if (onStack.has(edge.target)) low.set(file, Math.min(low.get(file)!, order.get(edge.target)!));
    }
    if (low.get(file) !== order.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1) groups.push(group.sort());
  };
  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return groups;
}

/**
 * Cycles through type imports that issue 38 reshapes and that are not broken yet: the venue budget's
 * files (its state types and its fetch), and the webhook providers' registry (the providers' list the
 * deliveries' table checks, and the providers typed by the repository over that table). A group is
 * excused when it holds one of these files; any other cycle fails.
 */
const RESHAPED = [
  path.join('platform', 'venue-budget', 'venue-budget.ts'),
  path.join('modules', 'webhooks', 'providers', 'registry.ts'),
];

describe('the import graph of src/', () => {
  const graph = importGraph();

  it('is read: every layer has files and imports', () => {
    const files = [...graph.keys()];
    for (const layer of ['config', 'platform', 'modules'])
      assert.ok(files.filter((f) => f.startsWith(`${layer}${path.sep}`)).length > 5, layer);
    assert.ok([...graph.values()].flat().filter((e) => e.typeOnly).length > 100);
    assert.ok([...graph.values()].flat().filter((e) => !e.typeOnly).length > 500);
  });

  it('has config import nothing of ours but config, and the platform nothing but itself and config', () => {
    const outside: string[] = [];
    for (const [file, edges] of graph) {
      const layer = file.split(path.sep)[0]!;
      const allowed = layer === 'config' ? ['config'] : layer === 'platform' ? ['platform', 'config'] : null;
      if (!allowed) continue;
      for (const { target } of edges)
        if (!allowed.includes(target.split(path.sep)[0]!)) outside.push(`${file} -> ${target}`);
    }
    assert.deepEqual(outside, []);
  });

  it('has no cycle of imports that load at run time', () => {
    assert.deepEqual(
      cycles(graph, (edge) => !edge.typeOnly),
      [],
    );
  });

  it('finds a cycle where there is one, and tells a type import from one that loads', () => {
    const edge = (target: string, typeOnly = false): Edge => ({ target, typeOnly });
    const sample = new Map<string, Edge[]>([
      ['a.ts', [edge('b.ts')]],
      ['b.ts', [edge('c.ts'), edge('a.ts', true)]],
      ['c.ts', [edge('b.ts')]],
      ['d.ts', [edge('a.ts')]],
    ]);
    assert.deepEqual(
      cycles(sample, () => true),
      [['a.ts', 'b.ts', 'c.ts']],
    );
    assert.deepEqual(
      cycles(sample, (e) => !e.typeOnly),
      [['b.ts', 'c.ts']],
    );
  });

  it('has no cycle through type imports either, beyond those issue 38 is reshaping', () => {
    assert.deepEqual(
      cycles(graph, () => true).filter((group) => !RESHAPED.some((file) => group.includes(file))),
      [],
    );
  });
});
