import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { tempDir } from '@portico/testkit';
import {
  Auth,
  AuthError,
  AuthValidationError,
  MemoryStorage,
  migrateConfigCommand,
  migrateConfigFile,
  migrateInitParams,
  migrateLoginParams,
  normalizeInitParams,
  resolveSdkUrl,
  validateLoginParams,
} from '../src/node.ts';

const base = { clientId: 'BPi5PB_UiIZ', network: 'sapphire_devnet' } as const;

function rejects(input: unknown, field: string, allowed: RegExp): void {
  assert.throws(
    () => normalizeInitParams(input),
    (err: unknown) => {
      assert.ok(err instanceof AuthValidationError, String(err));
      assert.equal(err.field, field);
      assert.match(err.message, allowed);
      return true;
    },
  );
}

describe('init parameter validation', () => {
  it('fills defaults: buildEnv production, sessionTime 86400, chainNamespace eip155', () => {
    const { params, changes } = normalizeInitParams(base);
    assert.equal(params.buildEnv, 'production');
    assert.equal(params.sessionTime, 86400);
    assert.equal(params.chainNamespace, 'eip155');
    assert.deepEqual(changes, []);
  });

  it('takes any sessionTime of a second or more, with no cap and no warning; refuses the rest', () => {
    const { params, changes } = normalizeInitParams({ ...base, sessionTime: 30 * 86_400 });
    assert.equal(params.sessionTime, 2_592_000);
    assert.deepEqual(changes, []);
    for (const bad of [-1, 0, 1.5, '60', 2 ** 53])
      rejects({ ...base, sessionTime: bad }, 'sessionTime', /seconds/);
  });

  it('names the field and the allowed values for every invalid value', () => {
    rejects({ network: 'mainnet' }, 'clientId', /non-empty string/);
    rejects(
      { ...base, network: 'ropsten' },
      'network',
      /mainnet, aqua, testnet, cyan, sapphire_devnet, sapphire_mainnet/,
    );
    rejects({ ...base, buildEnv: 'prod' }, 'buildEnv', /production, staging, testing/);
    rejects(
      { ...base, whiteLabel: { defaultLanguage: 7 } },
      'whiteLabel.defaultLanguage',
      /en, de, ja, ko, zh, es, fr, pt, nl/,
    );
    rejects({ ...base, whiteLabel: { mode: 'dim' } }, 'whiteLabel.mode', /auto, light, dark/);
    rejects(
      { ...base, whiteLabel: { theme: { primary: 'blue' } } },
      'whiteLabel.theme.primary',
      /hex colour/,
    );
    rejects({ ...base, whiteLabel: { appUrl: 'not a url' } }, 'whiteLabel.appUrl', /absolute URL/);
    rejects({ ...base, whiteLabel: { useLogoLoader: 'yes' } }, 'whiteLabel.useLogoLoader', /true or false/);
    rejects({ ...base, whiteLabel: { fontSize: 3 } }, 'whiteLabel.fontSize', /appName/);
    rejects({ ...base, sdkUrl: 'ftp://x' }, 'sdkUrl', /http/);
    rejects({ ...base, chainNamespace: 'EIP 155' }, 'chainNamespace', /eip155, solana/);
    rejects(
      { ...base, loginConfig: { x: { verifier: 'v', typeOfLogin: 'myspace', clientId: 'c' } } },
      'loginConfig.x.typeOfLogin',
      /google/,
    );
    rejects(
      { ...base, loginConfig: { x: { typeOfLogin: 'jwt', clientId: 'c' } } },
      'loginConfig.x.verifier',
      /non-empty/,
    );
    rejects(
      { ...base, mfaSettings: { passwordFactor: { priority: 1 } } },
      'mfaSettings.passwordFactor.enable',
      /true or false/,
    );
    rejects(
      { ...base, mfaSettings: { passwordFactor: { enable: true, priority: 0 } } },
      'mfaSettings.passwordFactor.priority',
      /1 or more/,
    );
    rejects(
      { ...base, mfaSettings: { smsFactor: { enable: true } } },
      'mfaSettings.smsFactor',
      /deviceShareFactor/,
    );
    rejects({ ...base, colour: 'red' }, 'initParams.colour', /clientId, network/);
    const on = (priority?: number) => ({ enable: true, priority });
    rejects(
      { ...base, mfaSettings: { passwordFactor: on(1) } },
      'mfaSettings',
      /at least two enabled factors/,
    );
    rejects(
      {
        ...base,
        mfaSettings: {
          passwordFactor: on(1),
          deviceShareFactor: { enable: false },
          backUpShareFactor: { enable: false },
        },
      },
      'mfaSettings',
      /at least two/,
    );
    rejects(
      { ...base, mfaSettings: { passwordFactor: on(2), deviceShareFactor: on(2) } },
      'mfaSettings.passwordFactor.priority',
      /not used by deviceShareFactor/,
    );
    rejects(
      {
        ...base,
        mfaSettings: {
          passwordFactor: on(1),
          deviceShareFactor: on(2),
          backUpShareFactor: { enable: false, mandatory: true },
        },
      },
      'mfaSettings.backUpShareFactor.mandatory',
      /not enabled/,
    );
  });

  it('accepts every v7 field', () => {
    const { params } = normalizeInitParams({
      ...base,
      buildEnv: 'testing',
      sdkUrl: 'http://127.0.0.1:9/',
      redirectUrl: 'https://app.example/cb',
      whiteLabel: {
        appName: 'Demo',
        logoLight: 'https://app.example/l.svg',
        logoDark: 'https://app.example/d.svg',
        defaultLanguage: 'ja',
        mode: 'dark',
        theme: { primary: '#FF00AA' },
        appUrl: 'https://app.example',
        useLogoLoader: true,
      },
      loginConfig: { google: { verifier: 'g', typeOfLogin: 'google', clientId: 'c', name: 'Google' } },
      useCoreKitKey: true,
      chainNamespace: 'solana',
      mfaSettings: {
        deviceShareFactor: { enable: true, priority: 1, mandatory: true },
        backUpShareFactor: { enable: true, priority: 2 },
        passwordFactor: { enable: false },
      },
      sessionTime: 3600,
    });
    assert.equal(params.whiteLabel?.mode, 'dark');
    assert.equal(params.sessionTime, 3600);
    assert.equal(resolveSdkUrl(params), 'http://127.0.0.1:9');
  });

  it('selects the service address from buildEnv and network unless sdkUrl is given', () => {
    assert.equal(resolveSdkUrl({ network: 'mainnet' }), 'https://auth.portico.dev');
    assert.equal(resolveSdkUrl({ network: 'sapphire_devnet' }), 'https://devnet.auth.portico.dev');
    assert.equal(resolveSdkUrl({ network: 'cyan', buildEnv: 'staging' }), 'https://staging.auth.portico.dev');
    assert.equal(resolveSdkUrl({ network: 'cyan', buildEnv: 'testing' }), 'http://127.0.0.1:8790');
  });
});

describe('login parameter validation', () => {
  const init = normalizeInitParams({
    ...base,
    loginConfig: { mine: { verifier: 'v', typeOfLogin: 'jwt', clientId: 'c' } },
  }).params;
  it('defaults mfaLevel and curve and accepts loginConfig keys as providers', () => {
    const p = validateLoginParams({ loginProvider: 'mine' }, init);
    assert.equal(p.mfaLevel, 'default');
    assert.equal(p.curve, 'secp256k1');
  });
  it('refuses unknown providers, levels, curves and jwt without id_token', () => {
    assert.throws(
      () => validateLoginParams({ loginProvider: 'myspace' }, init),
      /loginProvider.*google.*mine/s,
    );
    assert.throws(
      () => validateLoginParams({ mfaLevel: 'always' }, init),
      /default, optional, mandatory, none/,
    );
    assert.throws(() => validateLoginParams({ curve: 'p256' }, init), /secp256k1, ed25519/);
    assert.throws(() => validateLoginParams({ loginProvider: 'jwt' }, init), /extraLoginOptions.id_token/);
    assert.throws(
      () => validateLoginParams({ extraLoginOptions: { leeway: -3 } }, init),
      /extraLoginOptions.leeway/,
    );
    assert.throws(
      () => validateLoginParams({ extraLoginOptions: { additionalParams: { a: 1 } } }, init),
      /extraLoginOptions.additionalParams.a/,
    );
  });
});

describe('v6 input', () => {
  const v6 = {
    clientId: 'abc',
    network: 'cyan',
    whiteLabel: { name: 'Old App', dark: true, defaultLanguage: 'de-DE', theme: { primary: '#123456' } },
  } as const;

  it('is converted with one deprecation warning per field', async () => {
    const warnings: string[] = [];
    const auth = await Auth.create(v6 as never, {
      storage: new MemoryStorage(),
      onWarning: (m) => warnings.push(m),
    });
    assert.equal(warnings.length, 3);
    assert.match(warnings.join('\n'), /name is v6: renamed to appName/);
    assert.match(warnings.join('\n'), /dark is v6: replaced by mode "dark"/);
    assert.match(warnings.join('\n'), /"de-DE"/);
    assert.deepEqual(auth.initParams.whiteLabel, {
      appName: 'Old App',
      mode: 'dark',
      defaultLanguage: 'de',
      theme: { primary: '#123456' },
    });
  });

  it('migrateInitParams returns v7 parameters and the changes', () => {
    const { initParams, changes } = migrateInitParams({
      ...v6,
      whiteLabel: { ...v6.whiteLabel, dark: false },
    });
    assert.deepEqual(initParams, {
      clientId: 'abc',
      network: 'cyan',
      whiteLabel: { appName: 'Old App', mode: 'light', defaultLanguage: 'de', theme: { primary: '#123456' } },
    });
    assert.deepEqual(
      changes.map((c) => [c.field, c.to]),
      [
        ['whiteLabel.name', 'whiteLabel.appName'],
        ['whiteLabel.dark', 'whiteLabel.mode'],
        ['whiteLabel.defaultLanguage', 'de'],
      ],
    );
  });

  it('a v6 whiteLabel without dark is light, as v6 showed it; a v7 one keeps the default (auto)', async () => {
    const warnings: string[] = [];
    const auth = await Auth.create(
      { ...base, whiteLabel: { name: 'Old', theme: { primary: '#123456' } } } as never,
      {
        storage: new MemoryStorage(),
        onWarning: (m) => warnings.push(m),
      },
    );
    assert.equal(auth.initParams.whiteLabel?.mode, 'light');
    assert.match(warnings.join('\n'), /v6 and has no dark: v6 showed it light, so mode "light"/);
    assert.equal(
      normalizeInitParams({ ...base, whiteLabel: { appName: 'New' } }).params.whiteLabel?.mode,
      undefined,
    );
    assert.equal(
      normalizeInitParams({ ...base, whiteLabel: { name: 'Mixed', mode: 'dark' } }).params.whiteLabel?.mode,
      'dark',
    );
    assert.equal(
      normalizeInitParams({ ...base, whiteLabel: { defaultLanguage: 'de-DE' } }).params.whiteLabel?.mode,
      'light',
      'a free-form language marks a v6 whiteLabel too',
    );
  });

  it('a v6 defaultLanguage outside the nine ("it") becomes "en" with a warning, in Auth.create', async () => {
    const warnings: string[] = [];
    const auth = await Auth.create({ ...base, whiteLabel: { defaultLanguage: 'it' } } as never, {
      storage: new MemoryStorage(),
      onWarning: (m) => warnings.push(m),
    });
    assert.equal(auth.initParams.whiteLabel?.defaultLanguage, 'en');
    assert.match(
      warnings.join('\n'),
      /"it" is not one of the nine languages of the login page .*: using "en"/,
    );
  });

  it('v5/v6 login parameters: sessionTime and redirectUrl apply to that login with a warning; appState comes back', async () => {
    const { params, redirectUrl, sessionTime, changes } = migrateLoginParams({
      loginProvider: 'google',
      redirectUrl: 'com.example.app://auth',
      sessionTime: 3600,
      appState: 'cart=3',
    });
    assert.deepEqual(params, { loginProvider: 'google', appState: 'cart=3' });
    assert.equal(redirectUrl, 'com.example.app://auth');
    assert.equal(sessionTime, 3600);
    assert.deepEqual(
      changes.map((c) => c.field),
      ['loginParams.redirectUrl', 'loginParams.sessionTime'],
    );
    assert.throws(() => migrateLoginParams({ sessionTime: 0 }), /loginParams\.sessionTime/);
    assert.throws(() => migrateLoginParams({ redirectUrl: 'javascript:x' }), /loginParams\.redirectUrl/);
    const init = normalizeInitParams(base).params;
    assert.equal(validateLoginParams(params, init).appState, 'cart=3');
  });

  const dir = tempDir();
  after(() => dir.cleanup());
  it('migrateConfigFile rewrites a v6 JSON config, top level or nested', async () => {
    const top = join(dir.path, 'top.json');
    writeFileSync(top, JSON.stringify(v6));
    const a = await migrateConfigFile(top);
    assert.equal(JSON.parse(a.json).whiteLabel.appName, 'Old App');
    assert.equal(a.changes.length, 3);
    const nested = join(dir.path, 'nested.json');
    writeFileSync(nested, JSON.stringify({ port: 1, auth: { initParams: v6 } }));
    const b = await migrateConfigFile(nested);
    const parsed = JSON.parse(b.json);
    assert.equal(parsed.port, 1);
    assert.equal(parsed.auth.initParams.whiteLabel.mode, 'dark');
    assert.equal(b.changes[0].field, 'auth.initParams.whiteLabel.name');
    const bad = join(dir.path, 'bad.json');
    writeFileSync(bad, JSON.stringify({ ...v6, network: 'kovan' }));
    await assert.rejects(migrateConfigFile(bad), /network/);
  });

  it('migrateConfigCommand rewrites the file in place and prints each change', async () => {
    const file = join(dir.path, 'cmd.json');
    writeFileSync(file, JSON.stringify(v6));
    const lines: string[] = [];
    assert.equal(await migrateConfigCommand(file, { print: (l) => lines.push(l) }), 0);
    assert.equal(lines.length, 4);
    assert.match(lines[0], /^whiteLabel\.name → whiteLabel\.appName/);
    assert.match(lines[3], /rewritten to v7 \(3 changes\)/);
    const migrated = JSON.parse(readFileSync(file, 'utf8'));
    assert.equal(migrated.whiteLabel.mode, 'dark');
    lines.length = 0;
    assert.equal(await migrateConfigCommand(file, { print: (l) => lines.push(l) }), 0);
    assert.match(lines[0], /already v7/);
    const bad = join(dir.path, 'bad.json');
    assert.equal(await migrateConfigCommand(bad, { print: (l) => lines.push(l) }), 1);
    assert.match(lines.at(-1) ?? '', /network/);
  });

  it('portico migrate-config turns "it" into "en" and a whiteLabel without dark into light, and says so', async () => {
    const file = join(dir.path, 'italian.json');
    writeFileSync(
      file,
      JSON.stringify({
        auth: { clientId: 'abc', network: 'aqua', whiteLabel: { name: 'Ciao', defaultLanguage: 'it' } },
      }),
    );
    const lines: string[] = [];
    assert.equal(await migrateConfigCommand(file, { print: (l) => lines.push(l) }), 0);
    const migrated = JSON.parse(readFileSync(file, 'utf8'));
    assert.deepEqual(migrated.auth.whiteLabel, { appName: 'Ciao', defaultLanguage: 'en', mode: 'light' });
    assert.match(
      lines.join('\n'),
      /auth\.whiteLabel\.defaultLanguage → en: .*"it" is not one of the nine languages/,
    );
    assert.match(lines.join('\n'), /auth\.whiteLabel\.dark → auth\.whiteLabel\.mode: .*mode "light"/);
    assert.match(lines.at(-1) ?? '', /rewritten to v7 \(3 changes\)/);
  });
});

describe('state without a session', () => {
  it('getters return "" and getUserInfo/logout fail "No user found, please login again!"', async () => {
    const auth = await Auth.create(
      { ...base, sdkUrl: 'http://127.0.0.1:9' },
      { storage: new MemoryStorage() },
    );
    assert.deepEqual(auth.state, {});
    assert.equal(auth.getPrivKey(), '');
    assert.equal(auth.getEd25519PrivKey(), '');
    assert.throws(
      () => auth.getUserInfo(),
      (e: unknown) => e instanceof AuthError && e.message === 'No user found, please login again!',
    );
    await assert.rejects(auth.logout(), /No user found, please login again!/);
  });
});
