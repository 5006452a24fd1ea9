export { BodyTooLargeError, InvalidJsonError, readBody, readJson } from './body.ts';
export { sendError, sendJson } from './respond.ts';
