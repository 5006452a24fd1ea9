import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Auth, MemoryStorage } from '@portico/auth';
import type { ReactElement } from 'react';
import { CLIENT_ID, startTestAuthService, type TestAuthService } from './auth-service.ts';
import { loadServerReact, REACT_LINES, type ReactLine, type ServerReact } from './react-lines.ts';

const BROWSER_GLOBALS = ['window', 'document', 'localStorage', 'sessionStorage', 'navigator'] as const;

/** Renders on the server with every browser global made a trap that records who reached for it. */
function renderTrapped(r: ServerReact, element: ReactElement): { html: string; touched: string[] } {
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
    return { html: r.renderToString(element), touched };
  } finally {
    for (const [name, descriptor] of saved) {
      if (descriptor) Object.defineProperty(globalThis, name, descriptor);
      else delete (globalThis as Record<string, unknown>)[name];
    }
  }
}

// Once per React line: @portico/react and react-dom/server of that line (react-lines.ts).
for (const line of REACT_LINES) serverRendering(line);

function serverRendering(line: ReactLine) {
  describe(`server rendering (react-dom/server, React ${line})`, { timeout: 60_000 }, () => {
    let r: ServerReact;
    let service: TestAuthService;
    before(async () => {
      r = await loadServerReact(line);
      service = await startTestAuthService();
    });
    after(() => service?.close());

    /** Every hook, rendered as one line of text. */
    function Status() {
      const { status, userInfo } = r.useAuth();
      const { ready } = r.useLogin();
      const provider = r.useProvider();
      const { sessions } = r.useSessions();
      return r.createElement(
        'p',
        null,
        `status:${status} user:${userInfo?.verifierId ?? '-'} ready:${ready} provider:${provider ? 'yes' : 'no'} sessions:${sessions?.length ?? '-'}`,
      );
    }

    it(`renders with React ${line}`, () => {
      assert.match(r.reactVersion, new RegExp(`^${line}\\.`), 'react');
      assert.match(r.reactDomVersion, new RegExp(`^${line}\\.`), 'react-dom/server');
    });

    it("with init options renders 'loading' and touches no browser global (the instance is made in the browser)", () => {
      const { html, touched } = renderTrapped(
        r,
        r.createElement(
          r.PorticoAuthProvider,
          { init: { clientId: CLIENT_ID, network: 'sapphire_devnet', sdkUrl: service.server.sdkUrl } },
          r.createElement(Status),
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
      const { html, touched } = renderTrapped(
        r,
        r.createElement(r.PorticoAuthProvider, { auth }, r.createElement(Status)),
      );
      assert.equal(html, '<p>status:loading user:- ready:false provider:no sessions:-</p>');
      assert.deepEqual(touched, []);
    });

    it('a hook outside the provider throws NO_AUTH_PROVIDER naming the hook', () => {
      for (const [name, hook] of [
        ['useAuth', r.useAuth],
        ['useLogin', r.useLogin],
        ['useProvider', r.useProvider],
        ['useSessions', r.useSessions],
      ] as const) {
        const Lone = () => {
          hook();
          return null;
        };
        assert.throws(
          () => r.renderToString(r.createElement(Lone)),
          (error: unknown) =>
            error instanceof r.PorticoReactError &&
            error.code === 'NO_AUTH_PROVIDER' &&
            error.message === `${name} must be used inside <PorticoAuthProvider>`,
        );
      }
    });
  });
}
