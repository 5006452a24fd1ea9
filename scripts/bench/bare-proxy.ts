// The bare Node proxy of the benchmarks, run in a process of its own: node:http in, undici out,
// the upstream's answer bytes passed through untouched. No keys, no rules: what any Node proxy pays.
// node --import tsx scripts/bench/bare-proxy.ts UPSTREAM_URL
import { createServer } from 'node:http';
import { Pool } from 'undici';

const upstream = new URL(process.argv[2]);
const pool = new Pool(upstream.origin, { connections: 128 });

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    pool
      .request({
        path: upstream.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.concat(chunks),
      })
      .then(async ({ statusCode, body }) => {
        const answer = Buffer.from(await body.arrayBuffer());
        res.writeHead(statusCode, { 'content-type': 'application/json', 'content-length': answer.length });
        res.end(answer);
      })
      .catch((error: Error) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(error.message);
      });
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`listening ${address.port}`);
});
// Exit through process.exit so that `node --cpu-prof` writes its profile.
process.once('SIGTERM', () => process.exit(0));
