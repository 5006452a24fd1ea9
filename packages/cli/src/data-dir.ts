import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** `portico dev`'s default data folder: `$XDG_DATA_HOME/portico/dev` or `~/.local/share/portico/dev`. */
export function defaultDataDir(): string {
  const base = process.env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return join(base, 'portico', 'dev');
}

/** Reads a small secret kept in the data folder (mode 0600), creating it on first use. */
export function dataDirSecret(
  dataDir: string,
  name: string,
  create: () => string = () => randomBytes(24).toString('hex'),
) {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, name);
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  const value = create();
  writeFileSync(path, `${value}\n`, { mode: 0o600 });
  return value;
}

export function writeDataDirSecret(dataDir: string, name: string, value: string) {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dataDir, name), `${value}\n`, { mode: 0o600 });
}
