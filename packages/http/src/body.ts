import type { IncomingMessage } from 'node:http';

/** A request body refused: a stable `code` and the HTTP `status` to answer with. */
export class RequestBodyError extends Error {
  override readonly name: string = 'RequestBodyError';
  constructor(
    readonly code: 'BODY_TOO_LARGE' | 'INVALID_JSON',
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The body is longer than the limit (declared or sent); the rest of it is drained, not kept. */
export class BodyTooLargeError extends RequestBodyError {
  override readonly name: string = 'BodyTooLargeError';
  constructor(readonly limit: number) {
    super('BODY_TOO_LARGE', 413, `request body too large: at most ${limit} bytes are accepted`);
  }
}

/** The body is not JSON. */
export class InvalidJsonError extends RequestBodyError {
  override readonly name: string = 'InvalidJsonError';
  constructor() {
    super('INVALID_JSON', 400, 'request body is not valid JSON');
  }
}

/**
 * Reads a request body as UTF-8, refusing more than `limit` bytes: at once when Content-Length
 * says so, else as soon as the bytes received pass it (the rest is drained, not buffered).
 */
export function readBody(request: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length']);
    if (declared > limit) return reject(new BodyTooLargeError(limit));
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        request.removeAllListeners('data');
        request.resume();
        reject(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () =>
      resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8')),
    );
    request.on('error', reject);
  });
}

/** Reads a JSON body of at most `limit` bytes; an empty body is undefined. */
export async function readJson(request: IncomingMessage, limit: number): Promise<unknown> {
  const text = await readBody(request, limit);
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidJsonError();
  }
}
