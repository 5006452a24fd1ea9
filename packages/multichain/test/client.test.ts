import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { getMultichainClient } from '@metamask/multichain-api-client';
import {
  attachWebSocketServer,
  createMultichainApiClientTransport,
  createMultichainClient,
  createWebSocketTransport,
  createWindowPostMessageTransport,
  MultichainConnectionError,
  MultichainTimeoutError,
  type MultichainTransport,
  type Session,
  serveWindowPostMessage,
} from '../src/node.ts';
import { createTestWallet } from './helpers.ts';

const scopes = { optionalScopes: { 'eip155:1': { methods: ['eth_blockNumber'], notifications: [] } } };

describe('dapp client over WebSocket', () => {
  const wallet = createTestWallet();
  let server: Server;
  let ws: ReturnType<typeof attachWebSocketServer>;
  let url: string;
  before(async () => {
    server = createServer((_req, res) => res.writeHead(404).end());
    ws = attachWebSocketServer(wallet.engine, { server });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/multichain`;
  });
  after(async () => {
    ws.close();
    await new Promise((resolve) => server.close(resolve));
  });

  test('the Origin header is the dapp origin', async () => {
    const client = createMultichainClient({
      transport: createWebSocketTransport({ url, origin: 'https://ws.example' }),
    });
    await client.createSession(scopes);
    assert.equal(wallet.approvals.at(-1)?.origin, 'https://ws.example');
    await client.close();
  });

  test('a connection without an Origin header is refused with a clear error', async () => {
    const client = createMultichainClient({ transport: createWebSocketTransport({ url }), reconnect: false });
    await assert.rejects(client.getSession(), MultichainConnectionError);
    await client.close();
  });

  test('an opaque null origin is refused', async () => {
    const client = createMultichainClient({
      transport: createWebSocketTransport({ url, origin: 'null' }),
      reconnect: false,
    });
    await assert.rejects(client.getSession(), MultichainConnectionError);
    await client.close();
  });

  test('after a dropped connection the client reconnects and restores the session via wallet_getSession', async () => {
    const client = createMultichainClient({
      transport: createWebSocketTransport({ url, origin: 'https://reconnect.example' }),
      reconnect: { initialDelayMs: 10 },
    });
    const created = await client.createSession(scopes);
    const restored = new Promise<Session>((resolve) => {
      const off = client.onSessionChanged((session) => {
        off();
        resolve(session);
      });
    });
    ws.dropConnections();
    assert.deepEqual(await restored, { sessionScopes: created.sessionScopes, sessionProperties: {} });
    assert.equal(
      await client.invokeMethod({ scope: 'eip155:1', request: { method: 'eth_blockNumber', params: [] } }),
      '0x10',
    );
    await client.close();
  });

  test('@metamask/multichain-api-client over the Portico transport keeps working after a dropped connection', async () => {
    const socket = createWebSocketTransport({ url, origin: 'https://metamask-client.example' });
    const client = getMultichainClient({ transport: createMultichainApiClientTransport(socket) });
    await client.createSession(scopes);
    const dropped = new Promise((resolve) => socket.onDisconnect(resolve));
    ws.dropConnections();
    await dropped;
    const session = await client.getSession();
    assert.deepEqual(Object.keys(session?.sessionScopes ?? {}), ['eip155:1']);
    await client.revokeSession({});
  });

  test('a closed client fails with a clear error', async () => {
    const client = createMultichainClient({
      transport: createWebSocketTransport({ url, origin: 'https://x.example' }),
    });
    await client.close();
    await assert.rejects(client.getSession(), /the client is closed/);
  });
});

describe('dapp client errors', () => {
  test('a request the wallet never answers fails with MultichainTimeoutError', async () => {
    // A transport that accepts messages and never answers: the only way to pin a timeout without a wallet.
    const silent: MultichainTransport = {
      connect: async () => {},
      send: () => {},
      close: async () => {},
      isConnected: () => true,
      onMessage: () => () => {},
      onDisconnect: () => () => {},
    };
    const client = createMultichainClient({ transport: silent, requestTimeoutMs: 1 });
    await assert.rejects(client.getSession(), MultichainTimeoutError);
  });

  // A scripted transport that answers only when the test says so: the wallet's approval page,
  // where a person takes longer than any request timeout.
  function deferredWallet() {
    type Sent = { id: number; method: string; params: { request: { method: string } } };
    const waiting = new Map<string, (message: Sent) => void>();
    let deliver: (message: unknown) => void = () => {};
    const transport: MultichainTransport = {
      connect: async () => {},
      send: (message) => {
        const sent = message as Sent;
        waiting.get(sent.params.request.method)?.(sent);
      },
      close: async () => {},
      isConnected: () => true,
      onMessage: (listener) => {
        deliver = listener;
        return () => {};
      },
      onDisconnect: () => () => {},
    };
    /** Resolves with the id of the request for `method` the client sends next. */
    const sentId = (method: string) =>
      new Promise<number>((resolve) => waiting.set(method, (message) => resolve(message.id)));
    const answer = (id: number, result: unknown) => deliver({ jsonrpc: '2.0', id, result });
    return { transport, sentId, answer };
  }
  const invoke = (client: ReturnType<typeof createMultichainClient>, method: string) =>
    client.invokeMethod({ scope: 'eip155:1', request: { method, params: [] } });

  test('a signing request waits for the person past requestTimeoutMs (approvalTimeoutMs, default none); reads keep requestTimeoutMs', async () => {
    const wallet = deferredWallet();
    const client = createMultichainClient({ transport: wallet.transport, requestTimeoutMs: 1 });
    const signingId = wallet.sentId('personal_sign');
    const signing = invoke(client, 'personal_sign');
    // Timers of one delay fire in the order they were set: once this read has timed out, a
    // 1 ms timer on the signing request would have fired too.
    await assert.rejects(invoke(client, 'eth_blockNumber'), MultichainTimeoutError);
    wallet.answer(await signingId, '0x5167');
    assert.equal(await signing, '0x5167');
  });

  test('approvalTimeoutMs bounds a signing request when set', async () => {
    const wallet = deferredWallet();
    const client = createMultichainClient({
      transport: wallet.transport,
      requestTimeoutMs: 60_000,
      approvalTimeoutMs: 1,
    });
    await assert.rejects(invoke(client, 'eth_sendTransaction'), MultichainTimeoutError);
    await assert.rejects(invoke(client, 'signAndSendTransaction'), MultichainTimeoutError);
    const readId = wallet.sentId('eth_chainId');
    const read = invoke(client, 'eth_chainId');
    wallet.answer(await readId, '0x1');
    assert.equal(await read, '0x1');
  });

  test('a wallet_sessionChanged without scopes reaches listeners and leaves the known session alone', async () => {
    // A scripted transport stands in for a misbehaving wallet: a real one never sends this.
    let deliver: (message: unknown) => void = () => {};
    const scripted: MultichainTransport = {
      connect: async () => {},
      send: () => {},
      close: async () => {},
      isConnected: () => true,
      onMessage: (listener) => {
        deliver = listener;
        return () => {};
      },
      onDisconnect: () => () => {},
    };
    const client = createMultichainClient({ transport: scripted });
    const heard: string[] = [];
    client.onNotification((notification) => heard.push(JSON.stringify(notification.params ?? null)));
    const sessionScopes = { 'eip155:1': { methods: [], notifications: [], accounts: [] } };
    deliver({ jsonrpc: '2.0', method: 'wallet_sessionChanged', params: { sessionScopes } });
    for (const params of [
      undefined,
      { sessionScopes: 'none' },
      JSON.parse('{"__proto__":{"sessionScopes":{}}}'),
    ])
      deliver({ jsonrpc: '2.0', method: 'wallet_sessionChanged', params });
    assert.equal(heard.length, 4, 'every notification reaches the listeners');
    assert.deepEqual(client.session, { sessionScopes });
  });

  test('a wallet that cannot be reached fails with MultichainConnectionError', async () => {
    const client = createMultichainClient({
      transport: createWebSocketTransport({
        url: 'ws://127.0.0.1:1/multichain',
        origin: 'https://x.example',
      }),
      reconnect: false,
    });
    await assert.rejects(client.getSession(), MultichainConnectionError);
  });
});

describe('window.postMessage transport', () => {
  // Node has no window: a minimal fake that delivers messages with origin and source as a browser does.
  type Listener = (event: { data: unknown; origin: string; source: unknown }) => void;
  function fakeWindow(origin: string) {
    const listeners = new Set<Listener>();
    const win = {
      origin,
      addEventListener: (_type: 'message', listener: Listener) => listeners.add(listener),
      removeEventListener: (_type: 'message', listener: Listener) => listeners.delete(listener),
      deliver(data: unknown, from: { origin: string }) {
        for (const listener of listeners)
          listener({ data: structuredClone(data), origin: from.origin, source: from });
      },
      postMessage: (_data: unknown, _targetOrigin: string) => {},
    };
    return win;
  }

  test('a dapp frame talks to a wallet frame; the wallet sees the frame origin', async () => {
    const wallet = createTestWallet();
    const walletWindow = fakeWindow('https://wallet.example');
    const dappWindow = fakeWindow('https://dapp.example');
    walletWindow.postMessage = (data, targetOrigin) => {
      assert.equal(targetOrigin, 'https://wallet.example');
      walletWindow.deliver(data, dappWindow);
    };
    dappWindow.postMessage = (data, targetOrigin) => {
      assert.equal(targetOrigin, 'https://dapp.example');
      dappWindow.deliver(data, walletWindow);
    };
    const served = serveWindowPostMessage(wallet.engine, { host: walletWindow });
    const client = createMultichainClient({
      transport: createWindowPostMessageTransport({
        target: walletWindow,
        walletOrigin: 'https://wallet.example',
        host: dappWindow,
      }),
    });
    const session = await client.createSession(scopes);
    assert.deepEqual(Object.keys(session.sessionScopes), ['eip155:1']);
    assert.equal(wallet.approvals.at(-1)?.origin, 'https://dapp.example');
    const changed = new Promise((resolve) => client.onNotification(resolve));
    await client.revokeSession();
    assert.deepEqual(await changed, {
      jsonrpc: '2.0',
      method: 'wallet_sessionChanged',
      params: { sessionScopes: {} },
    });
    await client.close();
    served.close();
  });
});
