// Attaches to the wrangler dev inspector (Chrome DevTools Protocol), profiles the Worker while `fn`
// runs, and writes the functions with the most self time (and the raw .cpuprofile).
export async function withProfile(port, fn, out) {
  const list = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  const target = list.find((t) => t.webSocketDebuggerUrl) ?? list[0];
  const ws = new WebSocket(target.webSocketDebuggerUrl, { headers: { Origin: 'https://devtools.devprod.cloudflare.dev' } });
  await new Promise((r, j) => { ws.onopen = r; ws.onerror = j; });
  let id = 0; const pending = new Map();
  ws.onmessage = (m) => { const d = JSON.parse(m.data); if (d.id && pending.has(d.id)) { pending.get(d.id)(d); pending.delete(d.id); } };
  const send = (method, params = {}) => new Promise((r) => { const i = ++id; pending.set(i, r); ws.send(JSON.stringify({ id: i, method, params })); });
  await send('Profiler.enable');
  await send('Profiler.setSamplingInterval', { interval: 200 });
  await send('Profiler.start');
  const result = await fn();
  const { result: { profile } } = await send('Profiler.stop');
  ws.close();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const dt = profile.timeDeltas; let total = 0;
  profile.samples.forEach((s, i) => { const n = byId.get(s); const f = n.callFrame; const key = `${f.functionName || '(anon)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber}`; const t = dt[i] ?? 0; total += t; self.set(key, (self.get(key) ?? 0) + t); });
  const rows = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 60).map(([k, v]) => `${(v / 1000).toFixed(0).padStart(7)} ms ${(100 * v / total).toFixed(1).padStart(5)}%  ${k}`);
  const { writeFileSync } = await import('node:fs');
  writeFileSync(out, `total ${(total / 1000).toFixed(0)} ms\n` + rows.join('\n') + '\n');
  writeFileSync(out + '.cpuprofile', JSON.stringify(profile));
  return result;
}
