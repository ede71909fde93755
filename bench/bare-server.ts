// The baseline: a bare node:http server answering every request with the same bytes as the app.
// Usage: node bare-server.ts <port> <body file> <content type>
// It holds one process.nextTick object for its life, as the app does (decision 425): without it, in 4 of 7
// measured starts V8 defined every tick object's keys in its runtime and the floor cost a quarter to a half
// more per answer, so the ratio followed the floor's start as much as the app (decision 570).
import '../src/platform/http/tick-shape.ts';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const [port, file, contentType] = process.argv.slice(2);
const body = readFileSync(file!);
createServer((_request, response) => {
  response.writeHead(200, { 'content-type': contentType!, 'content-length': body.length });
  response.end(body);
}).listen(Number(port), '127.0.0.1');
// Exits rather than dies on the bench's SIGTERM, so that a --cpu-prof profile (BENCH_CPU_PROF) is written.
process.on('SIGTERM', () => process.exit(0));
