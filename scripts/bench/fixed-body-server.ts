// The runtime's HTTP floor in the benchmarks, run in a process of its own: a node:http server that
// reads each request body and answers the same bytes every time (the block a cache hit returns).
// node --import tsx scripts/bench/fixed-body-server.ts FILE_WITH_BODY
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const answer = readFileSync(process.argv[2]);
const headers = { 'content-type': 'application/json', 'content-length': String(answer.length) };

const server = createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(200, headers);
    res.end(answer);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`listening ${address.port}`);
});
// Exit through process.exit so that `node --cpu-prof` writes its profile.
process.once('SIGTERM', () => process.exit(0));
