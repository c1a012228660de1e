// `npm run client:generate`: writes clients/typescript/src/schema.d.ts from the Worker's own
// /openapi.json. Without arguments it starts a local Worker for it (a minute); with
// `-- --url http://localhost:8787` it reads a running one.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { schemaTypes } from 'edge-billing-client-generator';

const OUT = fileURLToPath(new URL('./src/schema.d.ts', import.meta.url));

async function documentOf(url) {
  const res = await fetch(`${url}/openapi.json`, { signal: AbortSignal.timeout(60_000) });
  if (!res.ok) throw new Error(`${url}/openapi.json answered ${res.status}`);
  return res.json();
}

const urlArg = process.argv.indexOf('--url');
let document;
if (urlArg !== -1) {
  document = await documentOf(process.argv[urlArg + 1]);
} else {
  const { startScratchWorker } = await import('../../scripts/lib/scratch-worker.mjs');
  process.stdout.write('Starting a local Worker for its /openapi.json…\n');
  const server = await startScratchWorker();
  try {
    document = await documentOf(server.url);
  } finally {
    await server.stop();
  }
}
writeFileSync(OUT, await schemaTypes(document));
process.stdout.write(`Wrote ${OUT}\n`);
