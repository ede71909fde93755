// Just enough GraphQL for loopback fakes: parses one operation (variables, nested selections,
// arguments with literals, lists, objects and variables; no fragments or directives), and projects
// resolver results onto the selection, failing as a GraphQL server would on an unknown field, an
// undeclared variable or a missing required one.

export class GraphQLRequestError extends Error {
  constructor(
    message: string,
    readonly code: 'GRAPHQL_PARSE_FAILED' | 'GRAPHQL_VALIDATION_FAILED',
  ) {
    super(message);
  }
}

type Value =
  | { kind: 'variable'; name: string }
  | { kind: 'literal'; value: unknown }
  | { kind: 'list'; items: Value[] }
  | { kind: 'object'; fields: Record<string, Value> };

export interface Field {
  name: string;
  alias?: string;
  args: Record<string, Value>;
  selections: Field[] | null;
}

export interface Operation {
  type: 'query' | 'mutation';
  name?: string;
  variables: { name: string; type: string; required: boolean }[];
  selections: Field[];
}

type Token = { kind: 'punct' | 'name' | 'number' | 'string'; text: string; value?: unknown };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (/[\s,\uFEFF]/.test(c)) i++;
    else if (c === '#') while (i < source.length && source[i] !== '\n') i++;
    else if (source.startsWith('...', i))
      throw new GraphQLRequestError('Fragments are not supported by this fake', 'GRAPHQL_PARSE_FAILED');
    else if ('!$():=@[]{}|&'.includes(c)) {
      tokens.push({ kind: 'punct', text: c });
      i++;
    } else if (/[_A-Za-z]/.test(c)) {
      const name = /^[_A-Za-z][_0-9A-Za-z]*/.exec(source.slice(i))![0];
      tokens.push({ kind: 'name', text: name });
      i += name.length;
    } else if (/[-0-9]/.test(c)) {
      const number = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(source.slice(i))?.[0];
      if (!number) throw new GraphQLRequestError(`Syntax Error: Unexpected "${c}".`, 'GRAPHQL_PARSE_FAILED');
      tokens.push({ kind: 'number', text: number, value: Number(number) });
      i += number.length;
    } else if (source.startsWith('"""', i)) {
      const end = source.indexOf('"""', i + 3);
      if (end < 0) throw new GraphQLRequestError('Syntax Error: Unterminated string.', 'GRAPHQL_PARSE_FAILED');
      tokens.push({ kind: 'string', text: 'block', value: source.slice(i + 3, end) });
      i = end + 3;
    } else if (c === '"') {
      const match = /^"(?:[^"\\\n]|\\.)*"/.exec(source.slice(i));
      if (!match) throw new GraphQLRequestError('Syntax Error: Unterminated string.', 'GRAPHQL_PARSE_FAILED');
      tokens.push({ kind: 'string', text: match[0], value: JSON.parse(match[0]) });
      i += match[0].length;
    } else throw new GraphQLRequestError(`Syntax Error: Unexpected character "${c}".`, 'GRAPHQL_PARSE_FAILED');
  }
  return tokens;
}

export function parseOperation(source: string): Operation {
  const tokens = tokenize(source);
  let at = 0;
  const peek = () => tokens[at];
  const fail = (what: string): never => {
    throw new GraphQLRequestError(
      `Syntax Error: Expected ${what}, found ${peek()?.text ?? '<EOF>'}.`,
      'GRAPHQL_PARSE_FAILED',
    );
  };
  const expect = (text: string) => (peek()?.text === text ? tokens[at++]! : fail(`"${text}"`));
  const name = () => (peek()?.kind === 'name' ? tokens[at++]!.text : fail('Name'));
  const skip = (text: string) => {
    if (peek()?.text !== text) return false;
    at++;
    return true;
  };

  const typeRef = (): string => {
    if (skip('[')) {
      const inner = typeRef();
      expect(']');
      return `[${inner}]${skip('!') ? '!' : ''}`;
    }
    return `${name()}${skip('!') ? '!' : ''}`;
  };

  const value = (): Value => {
    const token = peek() ?? fail('Value');
    if (skip('$')) return { kind: 'variable', name: name() };
    if (skip('[')) {
      const items: Value[] = [];
      while (!skip(']')) items.push(value());
      return { kind: 'list', items };
    }
    if (skip('{')) {
      const fields: Record<string, Value> = {};
      while (!skip('}')) {
        const key = name();
        expect(':');
        fields[key] = value();
      }
      return { kind: 'object', fields };
    }
    at++;
    if (token.kind === 'number' || token.kind === 'string') return { kind: 'literal', value: token.value };
    if (token.kind === 'name') {
      const literals: Record<string, unknown> = { true: true, false: false, null: null };
      return { kind: 'literal', value: token.text in literals ? literals[token.text] : token.text };
    }
    return fail('Value');
  };

  const selectionSet = (): Field[] => {
    expect('{');
    const fields: Field[] = [];
    while (!skip('}')) {
      let fieldName = name();
      let alias: string | undefined;
      if (skip(':')) [alias, fieldName] = [fieldName, name()];
      const args: Record<string, Value> = {};
      if (skip('(')) {
        while (!skip(')')) {
          const key = name();
          expect(':');
          args[key] = value();
        }
      }
      fields.push({ name: fieldName, alias, args, selections: peek()?.text === '{' ? selectionSet() : null });
    }
    if (fields.length === 0) fail('Name');
    return fields;
  };

  let type: Operation['type'] = 'query';
  let opName: string | undefined;
  const variables: Operation['variables'] = [];
  if (peek()?.text === 'query' || peek()?.text === 'mutation') {
    type = tokens[at++]!.text as Operation['type'];
    if (peek()?.kind === 'name') opName = name();
    if (skip('(')) {
      while (!skip(')')) {
        expect('$');
        const varName = name();
        expect(':');
        const varType = typeRef();
        if (skip('=')) value();
        variables.push({ name: varName, type: varType, required: varType.endsWith('!') });
      }
    }
  }
  const selections = selectionSet();
  if (at < tokens.length) fail('<EOF>');
  return { type, name: opName, variables, selections };
}

/** Checks variable use and turns argument values into plain JavaScript values. */
export function resolveArgs(
  operation: Operation,
  field: Field,
  variables: Record<string, unknown>,
): Record<string, unknown> {
  for (const declared of operation.variables) {
    if (declared.required && (variables[declared.name] === undefined || variables[declared.name] === null)) {
      throw new GraphQLRequestError(
        `Variable "$${declared.name}" of required type "${declared.type}" was not provided.`,
        'GRAPHQL_VALIDATION_FAILED',
      );
    }
  }
  const resolve = (value: Value): unknown => {
    switch (value.kind) {
      case 'variable':
        if (!operation.variables.some((v) => v.name === value.name)) {
          throw new GraphQLRequestError(`Variable "$${value.name}" is not defined.`, 'GRAPHQL_VALIDATION_FAILED');
        }
        return variables[value.name];
      case 'literal':
        return value.value;
      case 'list':
        return value.items.map(resolve);
      case 'object':
        return Object.fromEntries(Object.entries(value.fields).map(([k, v]) => [k, resolve(v)]));
    }
  };
  return Object.fromEntries(Object.entries(field.args).map(([k, v]) => [k, resolve(v)]));
}

/** The result as a GraphQL server would return it: only the selected fields, in selection order. */
export function project(value: unknown, selections: Field[] | null, path: string): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map((item, index) => project(item, selections, `${path}[${index}]`));
  if (typeof value !== 'object') {
    if (selections)
      throw new GraphQLRequestError(
        `Field "${path}" must not have a selection since it is a scalar.`,
        'GRAPHQL_VALIDATION_FAILED',
      );
    return value;
  }
  if (!selections)
    throw new GraphQLRequestError(
      `Field "${path}" of object type must have a selection of subfields.`,
      'GRAPHQL_VALIDATION_FAILED',
    );
  const source = value as Record<string, unknown>;
  const result: Record<string, unknown> = {};
  for (const field of selections) {
    if (!(field.name in source))
      throw new GraphQLRequestError(`Cannot query field "${field.name}" at "${path}".`, 'GRAPHQL_VALIDATION_FAILED');
    result[field.alias ?? field.name] = project(source[field.name], field.selections, `${path}.${field.name}`);
  }
  return result;
}
