import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { readDappConfig } from './portico-config.ts';

// PORTICO_CONFIG: the file `portico dev --config-out` wrote (default portico-dev.json here).
// PORTICO_API_KEY: a key of the app's own (`portico keys create --name example-dapp`); default the dev key.
export default defineConfig(() => {
  const configPath = resolve(
    fileURLToPath(new URL('.', import.meta.url)),
    process.env.PORTICO_CONFIG ?? 'portico-dev.json',
  );
  return {
    define: { __PORTICO_CONFIG__: JSON.stringify(readDappConfig(configPath, process.env.PORTICO_API_KEY)) },
    build: { target: 'es2022' },
  };
});
