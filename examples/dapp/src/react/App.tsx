import type { Eip155Provider, SessionInfo } from '@portico/auth';
import { useAuth, useLogin, useProvider, useSessions } from '@portico/react';
import { type Config, connect, getConnection, signMessage, watchConnection } from '@wagmi/core';
import { useEffect, useState } from 'react';

const MESSAGE = 'Hello from the Portico example dapp';

export function App({ wagmiConfig }: { wagmiConfig: Config }) {
  const { status, userInfo, logout } = useAuth();
  return (
    <main>
      <h1>Portico example dapp (React)</h1>
      <p>
        Session: <output id="auth-status">{status}</output>
        {userInfo?.email ? ` as ${userInfo.email}` : ''}
      </p>
      {status === 'signedOut' && <LogIn />}
      {status === 'signedIn' && (
        <>
          <button type="button" onClick={() => logout()}>
            Log out
          </button>
          <Address />
          <SignWithWagmi wagmiConfig={wagmiConfig} />
          <Sessions />
        </>
      )}
    </main>
  );
}

function LogIn() {
  const { login, isPending, error, ready } = useLogin();
  return (
    <section aria-labelledby="login-title">
      <h2 id="login-title">1. Log in</h2>
      <button type="button" disabled={!ready || isPending} onClick={() => login()}>
        Log in
      </button>
      {error && <p role="alert">Error: {error.message}</p>}
    </section>
  );
}

/** The user's address, asked from `auth.provider` (useProvider). */
function Address() {
  const provider = useProvider() as Eip155Provider | undefined;
  const [address, setAddress] = useState<string>();
  useEffect(() => {
    provider?.request({ method: 'eth_accounts' }).then((accounts) => setAddress((accounts as string[])[0]));
  }, [provider]);
  return (
    <p>
      Ethereum address: <output id="evm-address">{address ?? '—'}</output>
    </p>
  );
}

/** personal_sign through wagmi (porticoAuth connector on auth.provider). */
function SignWithWagmi({ wagmiConfig }: { wagmiConfig: Config }) {
  const [connection, setConnection] = useState(() => getConnection(wagmiConfig));
  useEffect(() => watchConnection(wagmiConfig, { onChange: setConnection }), [wagmiConfig]);
  const [signature, setSignature] = useState('—');
  const sign = async () => {
    try {
      if (connection.status !== 'connected')
        await connect(wagmiConfig, { connector: wagmiConfig.connectors[0] });
      setSignature(await signMessage(wagmiConfig, { message: MESSAGE }));
    } catch (error) {
      setSignature(`Error: ${(error as Error).message}`);
    }
  };
  return (
    <section aria-labelledby="wagmi-title">
      <h2 id="wagmi-title">2. Sign with wagmi</h2>
      <p>
        wagmi: <output id="wagmi-account">{connection.address ?? connection.status}</output>
      </p>
      <p>Message: {MESSAGE}</p>
      <button type="button" onClick={sign}>
        Sign message
      </button>
      <p>
        <output id="signature">{signature}</output>
      </p>
    </section>
  );
}

function describeSession(session: SessionInfo): string {
  const device = session.device ?? 'unknown device';
  return `${device}, since ${new Date(session.createdAt).toLocaleString()}${session.current ? ' (this device)' : ''}`;
}

/** The user's sessions in this app (useSessions); ending this device's one signs out here. */
function Sessions() {
  const { sessions, error, end, refresh } = useSessions();
  return (
    <section aria-labelledby="sessions-title">
      <h2 id="sessions-title">3. Your sessions</h2>
      {error && <p role="alert">Error: {error.message}</p>}
      <button type="button" onClick={() => refresh()}>
        Refresh
      </button>
      <ul aria-label="Sessions">
        {sessions?.map((session) => (
          <li key={session.id}>
            {describeSession(session)}{' '}
            <button type="button" onClick={() => end(session.id)}>
              End
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
