// Where and why a JSON text is invalid, in the words and offsets of Python's `json` module, which is
// what FastAPI reports in a `json_invalid` 422. V8's JSON.parse messages differ between Node
// versions and often carry no position at all, so the text is scanned again here instead.

interface JsonSyntaxError {
  /** Offset in characters (Unicode code points, as Python counts them). */
  position: number;
  /** Python's message, e.g. `Expecting value`, `Expecting ',' delimiter`. */
  message: string;
}

class Invalid extends Error {
  constructor(
    readonly at: number,
    message: string,
  ) {
    super(message);
  }
}

const WS = new Set([' ', '\t', '\n', '\r']);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;

/** The first syntax error of `text`, or undefined when Python would accept it. */
export function locateJsonError(text: string): JsonSyntaxError | undefined {
  try {
    let end = value(text, skip(text, 0));
    end = skip(text, end);
    if (end !== text.length) throw new Invalid(end, 'Extra data');
    return undefined;
  } catch (error) {
    if (!(error instanceof Invalid)) throw error;
    return { position: codePointOffset(text, error.at), message: error.message };
  }
}

function skip(s: string, at: number): number {
  while (at < s.length && WS.has(s[at]!)) at++;
  return at;
}

/** Parses one value starting exactly at `at`; returns the index after it. */
function value(s: string, at: number): number {
  const c = s[at];
  if (c === '"') return string(s, at + 1);
  if (c === '{') return object(s, at + 1);
  if (c === '[') return array(s, at + 1);
  for (const word of ['null', 'true', 'false', 'NaN', 'Infinity', '-Infinity']) {
    if (s.startsWith(word, at)) return at + word.length;
  }
  NUMBER.lastIndex = at;
  const match = NUMBER.exec(s);
  if (match && match.index === at) return at + match[0].length;
  throw new Invalid(at, 'Expecting value');
}

function object(s: string, at: number): number {
  let end = skip(s, at);
  if (s[end] === '}') return end + 1;
  if (s[end] !== '"') throw new Invalid(end, 'Expecting property name enclosed in double quotes');
  for (;;) {
    end = string(s, end + 1);
    end = skip(s, end);
    if (s[end] !== ':') throw new Invalid(end, "Expecting ':' delimiter");
    end = value(s, skip(s, end + 1));
    end = skip(s, end);
    if (s[end] === '}') return end + 1;
    if (s[end] !== ',') throw new Invalid(end, "Expecting ',' delimiter");
    end = skip(s, end + 1);
    if (s[end] !== '"') throw new Invalid(end, 'Expecting property name enclosed in double quotes');
  }
}

function array(s: string, at: number): number {
  let end = skip(s, at);
  if (s[end] === ']') return end + 1;
  for (;;) {
    end = value(s, end);
    end = skip(s, end);
    if (s[end] === ']') return end + 1;
    if (s[end] !== ',') throw new Invalid(end, "Expecting ',' delimiter");
    end = skip(s, end + 1);
  }
}

/** `at` is just after the opening quote. */
function string(s: string, at: number): number {
  const begin = at - 1;
  let i = at;
  while (i < s.length) {
    const c = s[i]!;
    if (c === '"') return i + 1;
    if (c.charCodeAt(0) < 0x20) throw new Invalid(i, 'Invalid control character at');
    if (c === '\\') {
      const escaped = s[i + 1];
      if (escaped === undefined) break;
      if (escaped === 'u') {
        if (!HEX4.test(s.slice(i + 2, i + 6))) throw new Invalid(i + 1, 'Invalid \\uXXXX escape');
        i += 6;
        continue;
      }
      if (!'"\\/bfnrt'.includes(escaped)) throw new Invalid(i, 'Invalid \\escape');
      i += 2;
      continue;
    }
    i++;
  }
  throw new Invalid(begin, 'Unterminated string starting at');
}

/** JavaScript indexes count UTF-16 units; Python counts code points. */
export function codePointOffset(s: string, index: number): number {
  let surrogatePairs = 0;
  for (let i = 0; i < index - 1; i++) {
    const code = s.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        surrogatePairs++;
        i++;
      }
    }
  }
  return index - surrogatePairs;
}
