export { PorticoReactError, type PorticoReactErrorCode } from './errors.ts';
export {
  type UseAuthResult,
  type UseLoginResult,
  useAuth,
  useLogin,
  useProvider,
} from './hooks.ts';
export { PorticoAuthProvider, type PorticoAuthProviderProps } from './provider.ts';
export { type UseSessionsResult, useSessions } from './sessions.ts';
export type { AuthSnapshot, AuthStatus } from './store.ts';
