import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Auth, MemoryStorage } from '@portico/auth';
import { createElement as h } from 'react';
import { renderToString } from 'react-dom/server';
import {
  PorticoAuthProvider,
  PorticoReactError,
  useAuth,
  useLogin,
  useProvider,
  useSessions,
} from '../src/index.ts';
import { CLIENT_ID, startTestAuthService, type TestAuthService } from './auth-service.ts';

/** Every hook, rendered as one line of text. */
function Status() {
  const { status, userInfo } = useAuth();
  const { ready } = useLogin();
  const provider = useProvider();
  const { sessions } = useSessions();
  return h(
    'p',
    null,
    `status:${status} user:${userInfo?.verifierId ?? '-'} ready:${ready} provider:${provider ? 'yes' : 'no'} sessions:${sessions?.length ?? '-'}`,
  );
}

const BROWSER_GLOBALS = ['window', 'document', 'localStorage', 'sessionStorage', 'navigator'] as const;

/** Renders on the server with every browser global made a trap that records who reached for it. */
function renderTrapped(element: ReturnType<typeof h>): { html: string; touched: string[] } {
  const touched: string[] = [];
  const saved = BROWSER_GLOBALS.map(
    (name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)] as const,
  );
  for (const name of BROWSER_GLOBALS) {
    Object.defineProperty(globalThis, name, {
      configurable: true,
      get() {
        touched.push(name);
        return undefined;
      },
    });
  }
  try {
    return { html: renderToString(element), touched };
  } finally {
    for (const [name, descriptor] of saved) {
      if (descriptor) Object.defineProperty(globalThis, name, descriptor);
      else delete (globalThis as Record<string, unknown>)[name];
    }
  }
}

describe('server rendering (react-dom/server)', { timeout: 60_000 }, () => {
  let service: TestAuthService;
  before(async () => {
    service = await startTestAuthService();
  });
  after(() => service?.close());

  it("with init options renders 'loading' and touches no browser global (the instance is made in the browser)", () => {
    const { html, touched } = renderTrapped(
      h(
        PorticoAuthProvider,
        { init: { clientId: CLIENT_ID, network: 'sapphire_devnet', sdkUrl: service.server.sdkUrl } },
        h(Status),
      ),
    );
    assert.equal(html, '<p>status:loading user:- ready:false provider:no sessions:-</p>');
    assert.deepEqual(touched, []);
  });

  it("with a signed-in instance still renders 'loading': the server never reads the session", async () => {
    const auth = await Auth.create(
      {
        clientId: CLIENT_ID,
        network: 'sapphire_devnet',
        sdkUrl: service.server.sdkUrl,
        chainConfig: { chainNamespace: 'eip155', chainId: '0x7a69', rpcTarget: 'http://127.0.0.1:9' },
      },
      { storage: new MemoryStorage() },
    );
    await auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await service.token('sol') } });
    assert.ok(auth.provider, 'signed in, with a provider');
    const { html, touched } = renderTrapped(h(PorticoAuthProvider, { auth }, h(Status)));
    assert.equal(html, '<p>status:loading user:- ready:false provider:no sessions:-</p>');
    assert.deepEqual(touched, []);
  });

  it('a hook outside the provider throws NO_AUTH_PROVIDER naming the hook', () => {
    for (const [name, hook] of [
      ['useAuth', useAuth],
      ['useLogin', useLogin],
      ['useProvider', useProvider],
      ['useSessions', useSessions],
    ] as const) {
      const Lone = () => {
        hook();
        return null;
      };
      assert.throws(
        () => renderToString(h(Lone)),
        (error: unknown) =>
          error instanceof PorticoReactError &&
          error.code === 'NO_AUTH_PROVIDER' &&
          error.message === `${name} must be used inside <PorticoAuthProvider>`,
      );
    }
  });
});
