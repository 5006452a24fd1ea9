import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { readDappConfig } from './portico-config.ts';

const here = fileURLToPath(new URL('.', import.meta.url));

// PORTICO_CONFIG: the file `portico dev --config-out` wrote (default portico-dev.json here).
// PORTICO_API_KEY: a key of the app's own (`portico keys create --name example-dapp`); default the dev key.
export default defineConfig(() => {
  const configPath = resolve(here, process.env.PORTICO_CONFIG ?? 'portico-dev.json');
  return {
    define: { __PORTICO_CONFIG__: JSON.stringify(readDappConfig(configPath, process.env.PORTICO_API_KEY)) },
    // The React variant's .tsx: the automatic JSX runtime (no React import in each file).
    oxc: { jsx: { runtime: 'automatic' as const } },
    build: {
      target: 'es2022',
      // Two pages: index.html (plain TypeScript) and react.html (the React variant).
      rolldownOptions: { input: { main: resolve(here, 'index.html'), react: resolve(here, 'react.html') } },
    },
  };
});
