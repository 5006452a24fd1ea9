import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AuthAdminSource, proxyAudit } from './audit-proxy.ts';

/** Serves the dashboard for one request; false when the path is not the dashboard's. */
export type DashboardHandler = (request: IncomingMessage, response: ServerResponse) => boolean;

export type DashboardOptions = {
  /** Where the dashboard lives on the server, e.g. `/dashboard` (the default). */
  basePath?: string;
  /**
   * The gateway's admin token: a request to `<basePath>/api/audit*` must carry it (the page sends
   * the one it signed in with). Without it those routes answer 404.
   */
  adminToken?: string;
  /**
   * The auth service whose audit trail the Audit page shows, read through its admin API with its own
   * admin token (server-side only). Without it the page says no auth service is connected.
   */
  authAdmin?: AuthAdminSource;
};

export const DEFAULT_DASHBOARD_PATH = '/dashboard';

const PUBLIC_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'public');

/** The page's own files (served from `public/`) and uPlot's, served from node_modules. */
const PAGE_FILES = [
  'index.html',
  'app.js',
  'navigation.js',
  'view.js',
  'admin.js',
  'key-form.js',
  'views/signin.js',
  'views/keys.js',
  'views/new-key.js',
  'views/key.js',
  'views/usage.js',
  'views/audit.js',
  'views/upstreams.js',
  'api.js',
  'charts.js',
  'dom.js',
  'format.js',
  'allowlists.js',
  'security.js',
  'style.css',
];

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/**
 * The page talks only to its own origin (the admin API) and loads nothing from elsewhere.
 * uPlot sizes its elements through the CSSOM, which `style-src 'self'` allows.
 */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

const API_ROUTES = new Map<string, 'audit' | 'verify'>([
  ['/api/audit', 'audit'],
  ['/api/audit/verify', 'verify'],
]);

type StaticFile = { body: Buffer; contentType: string };

function loadFiles(): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  const add = (name: string, path: string) => {
    const extension = name.slice(name.lastIndexOf('.'));
    files.set(name, { body: readFileSync(path), contentType: CONTENT_TYPES[extension] });
  };
  for (const name of PAGE_FILES) add(name, join(PUBLIC_DIR, name));
  const require = createRequire(import.meta.url);
  const uplotDir = join(dirname(require.resolve('uplot/package.json')), 'dist');
  add('vendor/uPlot.esm.js', join(uplotDir, 'uPlot.esm.js'));
  add('vendor/uPlot.min.css', join(uplotDir, 'uPlot.min.css'));
  return files;
}

function normaliseBasePath(basePath: string): string {
  const trimmed = basePath.replace(/\/+$/, '');
  if (!/^\/[A-Za-z0-9/_-]*$/.test(trimmed) || trimmed === '') {
    throw new RangeError(`basePath must be a path such as /dashboard, got ${JSON.stringify(basePath)}`);
  }
  return trimmed;
}

/**
 * A request handler that serves the dashboard's files under `basePath` (default `/dashboard`)
 * and returns false, touching nothing, for every other path. The files are read once, here.
 */
export function createDashboardHandler(options: DashboardOptions = {}): DashboardHandler {
  const basePath = normaliseBasePath(options.basePath ?? DEFAULT_DASHBOARD_PATH);
  const files = loadFiles();
  return (request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== basePath && !path.startsWith(`${basePath}/`)) return false;
    const apiRoute = API_ROUTES.get(path.slice(basePath.length));
    if (apiRoute) {
      void proxyAudit(request, response, apiRoute, options).catch(() => {
        if (!response.headersSent) response.writeHead(500);
        response.end();
      });
      return true;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
      response.end('method not allowed\n');
      return true;
    }
    if (path === basePath) {
      response.writeHead(308, { location: `${basePath}/`, 'cache-control': 'no-cache' });
      response.end();
      return true;
    }
    const name = path.slice(basePath.length + 1) || 'index.html';
    const file = files.get(name);
    if (!file) {
      response.writeHead(404, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' });
      response.end(`no dashboard file ${name}\n`);
      return true;
    }
    response.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': file.contentType,
      'content-length': file.body.length,
    });
    response.end(request.method === 'HEAD' ? undefined : file.body);
    return true;
  };
}
