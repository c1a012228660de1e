// Attaches to the wrangler dev inspector (Chrome DevTools Protocol), profiles the Worker while `fn`
// runs, and writes the functions with the most self time and with the most inclusive time (self plus
// everything they called), and the raw .cpuprofile (opens in Chrome DevTools).
import { writeFileSync } from 'node:fs';

export async function withProfile(port, fn, out) {
  const list = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  const target = list.find((t) => t.webSocketDebuggerUrl) ?? list[0];
  const ws = new WebSocket(target.webSocketDebuggerUrl, { headers: { Origin: 'https://devtools.devprod.cloudflare.dev' } });
  await new Promise((r, j) => {
    ws.onopen = r;
    ws.onerror = j;
  });
  let id = 0;
  const pending = new Map();
  ws.onmessage = (m) => {
    const d = JSON.parse(m.data);
    if (d.id && pending.has(d.id)) {
      pending.get(d.id)(d);
      pending.delete(d.id);
    }
  };
  const send = (method, params = {}) =>
    new Promise((r) => {
      const i = ++id;
      pending.set(i, r);
      ws.send(JSON.stringify({ id: i, method, params }));
    });
  await send('Profiler.enable');
  await send('Profiler.setSamplingInterval', { interval: 200 });
  await send('Profiler.start');
  let result;
  try {
    result = await fn();
  } finally {
    const stopped = await send('Profiler.stop');
    ws.close();
    if (stopped.result?.profile) writeFileSync(out, summarizeProfile(stopped.result.profile));
    if (stopped.result?.profile) writeFileSync(out + '.cpuprofile', JSON.stringify(stopped.result.profile));
  }
  return result;
}

const frameKey = (f) => `${f.functionName || '(anon)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber}`;

/** Text summary of a V8 CPU profile: top functions by self time, then by inclusive time. */
export function summarizeProfile(profile, top = 40) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map();
  const inclusive = new Map();
  let total = 0;
  let idle = 0;
  profile.samples.forEach((s, i) => {
    const t = profile.timeDeltas[i] ?? 0;
    total += t;
    const node = byId.get(s);
    const key = frameKey(node.callFrame);
    if (node.callFrame.functionName === '(idle)') idle += t;
    self.set(key, (self.get(key) ?? 0) + t);
    // Each function once per sample, however deep it recurses.
    const seen = new Set();
    for (let n = s; n !== undefined; n = parent.get(n)) {
      const k = frameKey(byId.get(n).callFrame);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + t);
    }
  });
  const busy = total - idle;
  const rows = (m) =>
    [...m.entries()]
      .filter(([k]) => !k.startsWith('(root)') && !k.startsWith('(idle)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, v]) => `${(v / 1000).toFixed(0).padStart(7)} ms ${((100 * v) / (busy || 1)).toFixed(1).padStart(5)}%  ${k}`);
  return [
    `total ${(total / 1000).toFixed(0)} ms sampled, idle ${(idle / 1000).toFixed(0)} ms, busy ${(busy / 1000).toFixed(0)} ms (percentages are of busy time)`,
    '',
    `top ${top} by self time`,
    ...rows(self),
    '',
    `top ${top} by inclusive time`,
    ...rows(inclusive),
    '',
  ].join('\n');
}
