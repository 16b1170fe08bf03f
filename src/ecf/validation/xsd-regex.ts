// Translates an XSD regular expression (XML Schema Part 2, appendix F) into a JavaScript
// RegExp with the same meaning. Differences that matter for DGII's patterns: XSD patterns
// are implicitly anchored; `^` and `$` are ordinary characters; `.` excludes only \n and \r;
// \d, \w are Unicode-wide; \w is "everything but punctuation, separators and other".

const JS_SYNTAX = new Set([...'^$\\.*+?()[]{}|/']);

const OUTSIDE_CLASS: Readonly<Record<string, string>> = {
  d: '\\p{Nd}',
  D: '\\P{Nd}',
  s: '[ \\t\\n\\r]',
  S: '[^ \\t\\n\\r]',
  w: '[^\\p{P}\\p{Z}\\p{C}]',
  W: '[\\p{P}\\p{Z}\\p{C}]',
  n: '\\n',
  r: '\\r',
  t: '\\t',
};

const INSIDE_CLASS: Readonly<Record<string, string>> = {
  d: '\\p{Nd}',
  D: '\\P{Nd}',
  s: ' \\t\\n\\r',
  // General categories partition Unicode, so "not P, Z or C" is exactly L, M, N and S.
  w: '\\p{L}\\p{M}\\p{N}\\p{S}',
  W: '\\p{P}\\p{Z}\\p{C}',
  n: '\\n',
  r: '\\r',
  t: '\\t',
};

function literal(char: string): string {
  return JS_SYNTAX.has(char) || char === '-' ? `\\${char}` : char;
}

function literalOutside(char: string): string {
  return JS_SYNTAX.has(char) ? `\\${char}` : char;
}

export function xsdPatternToRegExp(pattern: string): RegExp {
  const chars = [...pattern];
  let out = '';
  let inClass = false;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string;
    if (c === '\\') {
      const next = chars[++i];
      if (next === undefined) throw new Error(`pattern ends with a backslash: ${pattern}`);
      const table = inClass ? INSIDE_CLASS : OUTSIDE_CLASS;
      const mapped = table[next];
      if (mapped !== undefined) out += mapped;
      else if (/[A-Za-z0-9]/.test(next)) throw new Error(`unsupported escape \\${next} in ${pattern}`);
      else out += inClass ? literal(next) : literalOutside(next);
      continue;
    }
    if (inClass) {
      if (c === ']') {
        inClass = false;
        out += c;
      } else if (c === '[') {
        throw new Error(`character class subtraction is not supported: ${pattern}`);
      } else if (c === '-') {
        out += '-';
      } else {
        out += c === '^' || c === '/' ? `\\${c}` : c;
      }
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += '[';
      if (chars[i + 1] === '^') {
        out += '^';
        i++;
      }
    } else if (c === '.') {
      out += '[^\\n\\r]';
    } else if (c === '^' || c === '$' || c === '/') {
      out += `\\${c}`;
    } else {
      out += c;
    }
  }
  if (inClass) throw new Error(`unterminated character class: ${pattern}`);
  return new RegExp(`^(?:${out})$`, 'u');
}
