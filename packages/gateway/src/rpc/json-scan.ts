// Character-level reading of JSON text without building values: what the body scan of a request
// and the splice of a node's result share. Strings are skipped with indexOf, not walked.

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const MINUS = 0x2d;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;

export const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
export const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Index of the quote closing the string that opens at `start`, or -1 when it is not closed. */
export function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let backslash = quote - 1;
    while (backslash > start && text.charCodeAt(backslash) === BACKSLASH) backslash--;
    if ((quote - 1 - backslash) % 2 === 0) return quote;
    from = quote + 1;
  }
}

const SCALAR = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)$/;

/**
 * Index just past the JSON value that starts at `start`, or -1 when no value closes there. Reads
 * the structure only: a string must close, brackets must pair up in kind, a bare word must be a
 * literal or a number; what sits between the tokens of an array or object is not checked.
 */
export function valueEnd(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first === QUOTE) {
    const end = stringEnd(text, start);
    return end < 0 ? -1 : end + 1;
  }
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    let i = start;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY || isSpace(c)) break;
      i++;
    }
    return i > start && SCALAR.test(text.slice(start, i)) ? i : -1;
  }
  // The closers still expected, innermost last.
  const open: number[] = [];
  let i = start;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) return -1;
      i = end + 1;
      continue;
    }
    if (c === OPEN_OBJECT) open.push(CLOSE_OBJECT);
    else if (c === OPEN_ARRAY) open.push(CLOSE_ARRAY);
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (open.pop() !== c) return -1;
      if (open.length === 0) return i + 1;
    }
    i++;
  }
  return -1;
}
