// A started provider login (OpenID round trip, development login), sealed in the store under a
// random id the browser carries as `state`; taken (and deleted) once.
import { bytesToHex, randomBytes } from '@noble/hashes/utils.js';
import { HttpError } from '../http.ts';
import { FLOW_TTL_MS, type Flow, type LoginContext } from './context.ts';
import { openJson, sealJson } from './sealed.ts';

export function newFlowId(): string {
  return bytesToHex(randomBytes(24));
}

export async function putFlow(ctx: LoginContext, flow: Flow, id = newFlowId()): Promise<string> {
  const { store, envelope, now } = ctx.deps;
  const name = `flow:${id}`;
  await store.putSession(name, sealJson(envelope, name, flow), now() + FLOW_TTL_MS);
  return id;
}

export async function takeFlow(ctx: LoginContext, id: string | null): Promise<Flow> {
  const { store, envelope, now } = ctx.deps;
  if (!id || !/^[0-9a-f]{48}$/.test(id))
    throw new HttpError(400, 'LOGIN_STATE_INVALID', 'Missing or malformed login state');
  const name = `flow:${id}`;
  const sealed = await store.getSession(name, now());
  if (!sealed || !(await store.deleteSession(name)))
    throw new HttpError(400, 'LOGIN_STATE_INVALID', 'Login state unknown, used or expired');
  return openJson<Flow>(envelope, name, sealed);
}
