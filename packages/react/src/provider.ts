import { Auth, type AuthInitParams, type AuthOptions } from '@portico/auth';
import {
  createContext,
  createElement,
  type ReactElement,
  type ReactNode,
  useContext,
  useEffect,
  useState,
} from 'react';
import { PorticoReactError } from './errors.ts';
import { AuthStore } from './store.ts';

export type PorticoAuthProviderProps = { children?: ReactNode } & (
  | {
      /**
       * The instance, or the promise `Auth.create(...)` returned (shared with a wagmi connector, say).
       * It is read in the browser only, once hydrated; the first one given stays.
       */
      auth: Auth | Promise<Auth>;
      init?: never;
      options?: never;
    }
  | {
      /** `Auth.create(init, options)` runs in the browser after the first render (read once). */
      init: AuthInitParams;
      options?: AuthOptions;
      auth?: never;
    }
);

const AuthContext = createContext<AuthStore | null>(null);

const isPromise = (value: unknown): value is Promise<Auth> =>
  typeof (value as { then?: unknown } | undefined)?.then === 'function';

/**
 * Makes the auth instance available to the hooks. With `init` (or a promise), the instance is
 * made (awaited) in an effect, so server rendering never creates it; either way the server renders
 * status 'loading' and the browser reads the instance once hydrated.
 */
export function PorticoAuthProvider(props: PorticoAuthProviderProps): ReactElement {
  const [store] = useState(() => new AuthStore(isPromise(props.auth) ? undefined : props.auth));
  const [create] = useState(() => {
    const { auth, init, options } = props;
    if (isPromise(auth)) return () => auth;
    return init ? () => Auth.create(init, options) : undefined;
  });
  const [first] = useState(props.auth);
  if (props.auth !== first) {
    throw new PorticoReactError(
      'AUTH_CHANGED',
      'PorticoAuthProvider: the auth instance cannot change (give the provider a new key to mount a new one)',
    );
  }
  useEffect(() => {
    // Once per provider: React's strict mode runs effects twice, the store creates the instance once.
    if (create) store.start(create);
  }, [store, create]);
  return createElement(AuthContext.Provider, { value: store }, props.children);
}

/** The provider's store, or `NO_AUTH_PROVIDER` naming the hook. */
export function useAuthStore(hook: string): AuthStore {
  const store = useContext(AuthContext);
  if (!store) {
    throw new PorticoReactError('NO_AUTH_PROVIDER', `${hook} must be used inside <PorticoAuthProvider>`);
  }
  return store;
}
