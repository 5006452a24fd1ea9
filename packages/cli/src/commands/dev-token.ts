import { parseArgs } from 'node:util';
import {
  DEV_JWT_VERIFIER,
  DEV_TOKEN_SECONDS,
  devTokenClaims,
  loadDevJwtKey,
  signDevToken,
} from '@portico/auth-server';
import { defaultDataDir } from '../data-dir.ts';
import { devJwtKeyFile } from '../dev-services.ts';
import { CliError } from '../errors.ts';

const HELP = `portico dev-token USER_ID [--email E] [--name N] [--json]

Prints a development login token for any user id, for the auth service of portico dev (its
development JWT verifier "${DEV_JWT_VERIFIER}"). Use it within ${DEV_TOKEN_SECONDS} s, once:

  auth.login({ loginProvider: '${DEV_JWT_VERIFIER}', extraLoginOptions: { id_token, verifierIdField: 'sub' } })

  --data-dir DIR    the data folder of portico dev (default ${defaultDataDir()})
  --email E, --name N
                    claims the token carries (userInfo.email, userInfo.name)
  --json            {id_token, verifier, loginProvider, verifierIdField, expiresIn}`;

export async function runDevToken(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      'data-dir': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const [sub, ...extra] = positionals;
  if (!sub || extra.length > 0) throw new CliError('usage: portico dev-token USER_ID [--email E] [--name N]');
  const dataDir = values['data-dir'] ?? defaultDataDir();
  let claims: ReturnType<typeof devTokenClaims>;
  try {
    claims = devTokenClaims({ sub, email: values.email, name: values.name });
  } catch (error) {
    throw new CliError((error as Error).message);
  }
  const key = await loadDevJwtKey(devJwtKeyFile(dataDir), { create: false }).catch(() => {
    throw new CliError(
      `no development login key in ${dataDir}: start portico dev with --data-dir ${dataDir} first`,
    );
  });
  const idToken = await signDevToken(key, claims);
  if (values.json) {
    console.log(
      JSON.stringify(
        {
          id_token: idToken,
          verifier: DEV_JWT_VERIFIER,
          loginProvider: DEV_JWT_VERIFIER,
          verifierIdField: 'sub',
          expiresIn: DEV_TOKEN_SECONDS,
        },
        null,
        2,
      ),
    );
  } else console.log(idToken);
  return 0;
}
