// The slow upstream of the traffic replay, run in a process of its own: every POST waits DELAY_MS
// and is then passed to the upstream; it counts the HTTP requests and JSON-RPC calls it forwarded.
// A WebSocket handshake is passed to the upstream too (a node such as anvil serves both on one
// address), each of the node's messages then reaching the client DELAY_MS late; a connection counts
// as one request and one call (`WebSocket`: the gateway's one eth_subscribe on it).
// GET /stats answers {"requests":N,"calls":N,"methods":{...}}; POST /reset sets them to 0.
// node --import tsx scripts/bench/delay-proxy.ts UPSTREAM_URL DELAY_MS
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { Pool } from 'undici';

const upstream = new URL(process.argv[2]);
const delayMs = Number(process.argv[3] ?? '20');
const pool = new Pool(upstream.origin, { connections: 256 });
let requests = 0;
let calls = 0;
let methods: Record<string, number> = {};
let openSockets = 0;

function count(body: Buffer) {
  requests++;
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { method?: string } | { method?: string }[];
    for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
      calls++;
      const method = item?.method ?? '?';
      methods[method] = (methods[method] ?? 0) + 1;
    }
  } catch {
    calls++;
  }
}

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ requests, calls, methods }));
    return;
  }
  if (req.url === '/reset') {
    // A WebSocket opened before the count starts (the gateway's, at its start) still counts.
    requests = openSockets;
    calls = openSockets;
    methods = openSockets > 0 ? { WebSocket: openSockets } : {};
    res.end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    count(body);
    setTimeout(() => {
      pool
        .request({
          path: upstream.pathname,
          method: 'POST',
          headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
          body,
        })
        .then(async ({ statusCode, body: answer }) => {
          const bytes = Buffer.from(await answer.arrayBuffer());
          res.writeHead(statusCode, { 'content-type': 'application/json', 'content-length': bytes.length });
          res.end(bytes);
        })
        .catch((error: Error) => {
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(error.message);
        });
    }, delayMs);
  });
});
server.on('upgrade', (req, client, head) => {
  requests++;
  calls++;
  methods.WebSocket = (methods.WebSocket ?? 0) + 1;
  openSockets++;
  let open = true;
  const node = connect(Number(upstream.port), upstream.hostname, () => {
    const lines = [`${req.method} ${upstream.pathname} HTTP/1.1`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i];
      lines.push(`${name}: ${name.toLowerCase() === 'host' ? upstream.host : req.rawHeaders[i + 1]}`);
    }
    node.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length > 0) node.write(head);
    client.pipe(node);
    // Timers of one delay fire in the order they were set: the bytes keep their order.
    node.on('data', (chunk: Buffer) => setTimeout(() => client.write(chunk), delayMs));
  });
  const close = () => {
    if (open) openSockets--;
    open = false;
    client.destroy();
    node.destroy();
  };
  node.on('error', close).on('end', () => setTimeout(close, delayMs));
  client.on('error', close).on('close', close);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`listening ${address.port}`);
});
// Exit through process.exit so that `node --cpu-prof` writes its profile.
process.once('SIGTERM', () => process.exit(0));
