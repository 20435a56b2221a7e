import v8 from 'node:v8';
import { readFileSync, writeFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
const hwm = () => readFileSync('/proc/self/status','utf8').match(/VmHWM:\s+(\d+)/)[1]/1024|0;
v8.setFlagsFromString('--no-wasm-tier-up --no-wasm-dynamic-tiering');
const mode = process.argv[2];
const t0 = performance.now();
if (mode === 'dump') {
  const db = await PGlite.create('/tmp/wt/x');
  const blob = await db.dumpDataDir('gzip');
  writeFileSync('/tmp/wt/x.tgz', Buffer.from(await blob.arrayBuffer()));
  console.log('dumped', blob.size);
  await db.close();
} else if (mode === 'load') {
  const blob = new Blob([readFileSync('/tmp/wt/x.tgz')]);
  const db = await PGlite.create('/tmp/wt/load' + Date.now(), { loadDataDir: blob });
  await db.query('select 1');
  console.log('load', (performance.now()-t0)|0, 'ms hwm', hwm());
  await db.close();
} else {
  const db = await PGlite.create('/tmp/wt/new' + Date.now());
  await db.query('select 1');
  console.log('new', (performance.now()-t0)|0, 'ms hwm', hwm());
  await db.close();
}
