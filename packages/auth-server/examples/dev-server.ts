// Runnable: npx tsx packages/auth-server/examples/dev-server.ts   (Ctrl-C stops it)
import { startAuthServer } from '@portico/auth-server';

const auth = await startAuthServer({ port: Number(process.env.PORT ?? 8790), onLog: console.log });
console.log('sdkUrl ', auth.sdkUrl); // pass to Auth.create({ ..., sdkUrl })
console.log('jwksUrl', auth.jwksUrl); // verify userInfo.idToken with it
process.once('SIGINT', () => void auth.close().then(() => process.exit(0)));
