export { BodyTooLargeError, InvalidJsonError, RequestBodyError, readBody, readJson } from './body.ts';
export { sendError, sendJson } from './respond.ts';
export {
  boolean,
  field,
  fields,
  listOf,
  nonEmptyString,
  oneOf,
  optional,
  parseBody,
  recordOf,
  rule,
  string,
  wholeNumber,
} from './schema.ts';
