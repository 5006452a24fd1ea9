// nginx with one worker and keep-alive connections to one upstream, the reference proxy of the
// benchmarks (Debian's nginx-light).
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '@portico/devchain';

export type Nginx = { url: string; stop: () => void };

export async function startNginx(upstreamUrl: string, parentDir: string): Promise<Nginx> {
  const upstream = new URL(upstreamUrl);
  const port = await freePort();
  const dir = join(parentDir, `nginx-${port}`);
  mkdirSync(dir, { recursive: true });
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir};
  proxy_temp_path ${dir};
  upstream backend { server ${upstream.host}; keepalive 256; }
  server {
    listen 127.0.0.1:${port};
    location / { proxy_pass http://backend; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
`,
  );
  const child = spawn('nginx', ['-c', conf, '-p', dir, '-g', 'daemon off;'], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}/`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      await fetch(url, {
        method: 'POST',
        body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
      });
      break;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { url, stop: () => child.kill('SIGTERM') };
}
