// docs/deploying.md's compose.yaml, run without Docker (no daemon where the tests run): each Portico
// service's command, with the environment compose.yaml gives it, against the local PostgreSQL and
// Redis. What differs from `docker compose up`, and only that: the variables naming compose's own
// services (postgres, redis) point at the local ones, each instance's ports are free ports of this
// machine (in compose both listen on 8545/8547 in their own containers), the command runs from the
// sources (bin/portico.mjs) rather than the image's installed dist/bin.js, and the upstream is anvil.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { type Anvil, startAnvil } from '@portico/devchain';
import { freePort, serviceUrl, tempDir } from '@portico/testkit';
import { parse, parseDocument } from 'yaml';
import { freshSchema } from '../../gateway/test/shared-services.ts';
import { type RunningStart, startInBackground } from './start-process.ts';

const run = promisify(execFile);
const root = new URL('../../../', import.meta.url).pathname;
const deploy = join(root, 'deploy');
const database = serviceUrl('DATABASE_URL');
const redis = serviceUrl('REDIS_URL');

type ComposeService = { command: string[]; environment: Record<string, string>; volumes: string[] };

/** compose's `${VAR:?message}` / `${VAR}` from the .env values. */
function interpolate(text: string, env: Record<string, string>): string {
  return text.replace(/\$\{([A-Z0-9_]+)(:\?[^}]*)?\}/g, (_, name: string) => {
    assert.ok(env[name] !== undefined, `.env needs ${name}`);
    return env[name];
  });
}

describe('deploy/compose.yaml run without Docker', { skip: database.skip || redis.skip }, () => {
  const compose = parse(readFileSync(join(deploy, 'compose.yaml'), 'utf8')) as {
    services: Record<string, ComposeService & { image?: string }>;
  };
  const porticoServices = Object.entries(compose.services).filter(([, s]) => s.image?.startsWith('portico:'));
  let anvil: Anvil;
  let dir: ReturnType<typeof tempDir>;
  let schema: Awaited<ReturnType<typeof freshSchema>>;
  const redisDb = 1 + Math.floor(Math.random() * 15);
  const instances: { name: string; running: RunningStart; port: number; authPort: number }[] = [];
  const dotEnv: Record<string, string> = {
    POSTGRES_PASSWORD: 'unused-locally',
    PORTICO_ADMIN_TOKEN: 'compose-admin-token-0123456789abcdef',
    PORTICO_AUTH_MASTER_KEY: 'c'.repeat(64),
    ETH_RPC_URL: '',
    GOOGLE_CLIENT_ID: 'compose-test-client',
    GOOGLE_CLIENT_SECRET: 'compose-test-secret',
  };

  before(async () => {
    anvil = await startAnvil();
    dotEnv.ETH_RPC_URL = anvil.url;
    dir = tempDir();
    schema = await freshSchema(database.url!);
    for (const [name, service] of porticoServices) {
      const environment = Object.fromEntries(
        Object.entries(service.environment).map(([key, value]) => [key, interpolate(value, dotEnv)]),
      );
      // compose's own services, by their names in compose.yaml, are the local ones here.
      assert.match(environment.DATABASE_URL, /@postgres:5432\//);
      environment.DATABASE_URL = schema.url;
      assert.equal(environment.REDIS_URL, 'redis://redis:6379');
      environment.REDIS_URL = `${redis.url!.replace(/\/\d*$/, '')}/${redisDb}`;
      // The mounted config, with this machine's free ports.
      const mounts = new Map(
        service.volumes.map((v) => v.split(':')).map(([from, to]) => [to, join(deploy, from)]),
      );
      const args = service.command.map((arg) => {
        const mounted = mounts.get(arg);
        if (!mounted) return arg;
        const config = parseDocument(readFileSync(mounted, 'utf8'));
        const port = config.get('port');
        assert.equal(port, 8545);
        const copy = join(dir.path, `${name}.yaml`);
        return { config, copy };
      });
      const port = await freePort();
      const authPort = await freePort();
      const commandArgs = args.map((arg) => {
        if (typeof arg === 'string') return arg;
        arg.config.set('port', port);
        arg.config.setIn(['auth', 'port'], authPort);
        writeFileSync(arg.copy, arg.config.toString());
        return arg.copy;
      });
      assert.equal(commandArgs[0], 'start');
      const running = startInBackground(commandArgs.slice(1), environment);
      instances.push({ name, running, port, authPort });
      await running.waitFor(/Auth service\s+\S+/);
    }
  });
  after(async () => {
    for (const { running } of instances) await running.stop();
    await anvil?.stop();
    await schema?.drop();
    if (redis.url) {
      const url = `${redis.url.replace(/\/\d*$/, '')}/${redisDb}`;
      await run('redis-cli', ['-u', url, 'FLUSHDB']).catch(() => {});
    }
    dir?.cleanup();
  });

  test('two Portico services, built from deploy/Dockerfile, behind the load balancer', () => {
    assert.deepEqual(
      porticoServices.map(([name]) => name),
      ['portico-1', 'portico-2'],
    );
    for (const [, service] of porticoServices) assert.ok(service.volumes.length > 0);
    const nginx = readFileSync(join(deploy, 'nginx.conf'), 'utf8');
    for (const [name] of porticoServices) {
      assert.ok(nginx.includes(`server ${name}:8545`));
      assert.ok(nginx.includes(`server ${name}:8547`));
    }
  });

  test("each instance passes the Dockerfile's HEALTHCHECK, serves the dashboard and its auth service", async () => {
    const dockerfile = readFileSync(join(deploy, 'Dockerfile'), 'utf8');
    const healthcheck = /HEALTHCHECK[^\n]*\\\n\s*CMD (\[.*\])/.exec(dockerfile);
    assert.ok(healthcheck, 'the Dockerfile has a HEALTHCHECK');
    const [command, ...args] = JSON.parse(healthcheck[1]) as string[];
    assert.equal(command, 'node');
    assert.match(args.join(' '), /\/readyz/);
    for (const instance of instances) {
      const probe = args.map((arg) => arg.replace('127.0.0.1:8545', `127.0.0.1:${instance.port}`));
      await run(process.execPath, probe); // rejects on a non-zero exit
      const dashboard = await fetch(`http://127.0.0.1:${instance.port}/dashboard/`);
      assert.equal(dashboard.status, 200);
      const jwks = await fetch(`http://127.0.0.1:${instance.authPort}/.well-known/jwks.json`);
      assert.equal(jwks.status, 200);
      assert.doesNotMatch(instance.running.output(), /warning: GET \/metrics is open/);
      // The banner names the addresses people open: the config's publicUrls, not the listening ones.
      assert.match(instance.running.output(), /^Dashboard\s+https:\/\/rpc\.example\.com\/dashboard\/\s/m);
      assert.match(instance.running.output(), /^Auth service\s+https:\/\/login\.example\.com\s/m);
    }
  });

  test('the instances share keys through PostgreSQL: a key made on portico-1 is listed on portico-2', async () => {
    const [first, second] = instances;
    const auth = {
      authorization: `Bearer ${dotEnv.PORTICO_ADMIN_TOKEN}`,
      'content-type': 'application/json',
    };
    const created = await fetch(`http://127.0.0.1:${first.port}/admin/keys`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: 'compose' }),
    });
    assert.equal(created.status, 201);
    const { id } = (await created.json()) as { id: string };
    const listed = (await (
      await fetch(`http://127.0.0.1:${second.port}/admin/keys`, { headers: auth })
    ).json()) as {
      keys: { id: string }[];
    };
    assert.ok(listed.keys.some((key) => key.id === id));
    const jwks = await Promise.all(
      instances.map(async (i) =>
        (await fetch(`http://127.0.0.1:${i.authPort}/.well-known/jwks.json`)).json(),
      ),
    );
    assert.deepEqual(jwks[0], jwks[1]);
  });

  test("the Dockerfile builds as the README installs: npm ci, npm run pack, INSTALL.txt's everything line, Node 20's override", () => {
    const dockerfile = readFileSync(join(deploy, 'Dockerfile'), 'utf8');
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    assert.ok(readme.includes('npm ci && npm run pack'));
    assert.match(dockerfile, /RUN npm ci [^\n]*&& npm run pack/);
    assert.ok(readme.includes('"overrides": { "@solana/errors": { "commander": "14.0.3" } }'));
    assert.ok(dockerfile.includes('"overrides":{"@solana/errors":{"commander":"14.0.3"}}'));
    // Line 2 of INSTALL.txt is the everything line (scripts/pack.mjs writes it so).
    const pack = readFileSync(join(root, 'scripts', 'pack.mjs'), 'utf8');
    assert.match(pack, /const text = \[\n\s*'# Everything[^\n]*',\n\s*full,/);
    assert.ok(dockerfile.includes('sed -n 2p /packed/INSTALL.txt'));
    assert.match(dockerfile, /^USER node$/m);
    assert.match(dockerfile, /^CMD \["start", /m);
    assert.match(
      dockerfile,
      /rm -rf node_modules\/@foundry-rs node_modules\/litesvm /,
      'no dev chain inside',
    );
  });
});
