// SPDX-License-Identifier: MIT
// A stand-in host for working on the page without the C server: node mock_host.mjs [PORT]
// serves src/view/page and answers the Protocol of docs/viewer.md (info, agents, shapes, state,
// history, stats, the stream) for a few simulated agents, one of them with a 2,000-node tree.
// It checks no Host, Origin or token: it is for the page's development only, never a server.
import http from 'node:http';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const page_dir = path.join(here, '..', '..', 'src', 'view', 'page');
const port = Number(process.argv[2] ?? 0);
const KINDS = ['PriorityNode', 'SequenceNode', 'SelectorNode', 'ParallelNode'];
const LEAVES = ['ActionNode', 'ConditionNode', 'WaitNode'];

let seed = 42;
const rand = (k) => ((seed = (seed * 1103515245 + 12345) % 2147483648) % k);

/** A shape of about n nodes, pre-order, with names. */
function make_shape(name, n) {
  const nodes = [{ name: 'Root', kind: 'PriorityNode', parent: -1, children: [], param: 0.25, shared: 0 }];
  const inner = [0];
  while (nodes.length < n) {
    const parent = inner[rand(inner.length)];
    nodes.push({ name: '', kind: '', parent, children: [], param: null, shared: 0 });
    if (rand(3) === 0) inner.push(nodes.length - 1);
  }
  // renumber in pre-order
  const kids = nodes.map(() => []);
  for (let i = 1; i < nodes.length; i++) kids[nodes[i].parent].push(i);
  const out = [];
  const stack = [[0, -1]];
  while (stack.length) {
    const [old, p] = stack.pop();
    const i = out.length;
    const leaf = kids[old].length === 0;
    const kind = old === 0 ? 'PriorityNode' : leaf ? LEAVES[old % 3] : KINDS[old % 4];
    out.push({ name: old === 0 ? 'Root' : `${kind.replace('Node', '')} ${old}`, kind, parent: p, children: [],
      param: kind === 'WaitNode' ? 1.5 : null, shared: 0 });
    if (p >= 0) out[p].children.push(i);
    for (let k = kids[old].length - 1; k >= 0; k--) stack.push([kids[old][k], i]);
  }
  for (const node of out) node.children.sort((a, b) => a - b);
  const hash = crypto.createHash('sha1').update(name + n).digest('hex').slice(0, 16);
  return { shape: hash, name, nodes: out };
}

const shapes = new Map();
const agents = [];
function add_agent(id, brain, shape) {
  shapes.set(shape.shape, shape);
  agents.push({ id, label: `${brain} ${id}`, brain, shape, statuses: shape.nodes.map(() => 0),
    last: shape.nodes.map(() => null), since: shape.nodes.map(() => null), records: [], seq: 0, think: 0,
    sleep: 0.5, x: rand(1000), y: rand(1000), counts: [] });
}
const wolf = make_shape('wolf', 24);
const sheep = make_shape('sheep', 12);
const big = make_shape('big', 2000);
for (let i = 1; i <= 6; i++) add_agent(i, i % 2 ? 'wolf' : 'sheep', i % 2 ? wolf : sheep);
add_agent(100, 'big', big);

let time = 0;
let frame = 0;
const clients = new Set();

/** One think: a random leaf's path runs, what ran before and is off it ends. */
function think(agent) {
  const nodes = agent.shape.nodes;
  let i = 0;
  const path = new Set([0]);
  while (nodes[i].children.length > 0) {
    i = nodes[i].children[rand(nodes[i].children.length)];
    path.add(i);
  }
  agent.think++;
  agent.sleep = rand(4) / 4;
  const rec = (r) => {
    agent.seq++;
    const full = { seq: agent.seq, time, think: agent.think, ...r };
    agent.records.push(full);
    if (agent.records.length > 10000) agent.records.shift();
    return full;
  };
  const out = [rec({ type: 'think', sleep: agent.sleep, cause: 'deadline' })];
  for (let n = 0; n < nodes.length; n++) {
    const want = path.has(n) ? 3 : agent.statuses[n] === 3 ? 1 + rand(2) : agent.statuses[n];
    if (want !== agent.statuses[n]) {
      out.push(rec({ type: 'status', node: n, from: agent.statuses[n], to: want }));
      if (want === 1 || want === 2) agent.last[n] = want;
      agent.since[n] = want === 3 ? time : null;
      agent.statuses[n] = want;
    }
  }
  return out;
}

setInterval(() => {
  time += 0.1;
  frame++;
  const counts = {};
  const by_agent = new Map();
  for (const a of agents) {
    if (rand(5) !== 0) continue;
    const recs = think(a);
    counts[a.id] = recs.filter((r) => r.type === 'status').length;
    by_agent.set(a.id, recs);
    a.counts.push([time, counts[a.id]]);
  }
  for (const c of clients) {
    send(c.socket, { type: 'frame', time, frame, counts });
    for (const id of c.ids) if (by_agent.has(id)) send(c.socket, { type: 'records', agent: id, records: by_agent.get(id) });
  }
}, 100);

function activity(a) {
  a.counts = a.counts.filter(([t]) => t > time - 5);
  return a.counts.reduce((s, [, n]) => s + n, 0) / 5;
}
function running(a) {
  return a.shape.nodes.filter((_, i) => a.statuses[i] === 3).map((n) => n.name);
}

function json(res, status, body) {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache' });
  res.end(JSON.stringify(body));
}

function answer(req, res) {
  const url = new URL(req.url, 'http://x');
  const parts = url.pathname.split('/').filter(Boolean);
  if (parts[0] !== 'api') {
    const file = parts.length === 0 ? 'index.html' : parts.join('/');
    const full = path.join(page_dir, path.normalize(file));
    if (!full.startsWith(page_dir) || !fs.existsSync(full)) return json(res, 404, { error: 'no such file' });
    const type = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' }[path.extname(full)];
    res.writeHead(200, { 'Content-Type': `${type}; charset=utf-8`, 'Cache-Control': 'no-cache' });
    return res.end(fs.readFileSync(full));
  }
  const agent = parts[1] === 'agents' && parts[2] ? agents.find((a) => a.id === Number(parts[2])) : null;
  if (parts[1] === 'info') {
    return json(res, 200, { bt: 'mock', mode: 'live', source: 'mock', time, frame, agents: agents.length,
      first_time: 0, last_time: time, token: false });
  }
  if (parts[1] === 'agents' && parts.length === 2) {
    return json(res, 200, { time, frame, agents: agents.map((a) => ({ id: a.id, label: a.label, brain: a.brain,
      shape: a.shape.shape, running: running(a), activity: activity(a), seq: a.seq, x: a.x, y: a.y })) });
  }
  if (parts[1] === 'shapes' && shapes.has(parts[2])) return json(res, 200, shapes.get(parts[2]));
  if (!agent) return json(res, 404, { error: 'no such agent or path' });
  if (parts.length === 3) {
    return json(res, 200, { id: agent.id, label: agent.label, brain: agent.brain, shape: agent.shape.shape, time,
      think: agent.think, seq: agent.seq, statuses: agent.statuses, last: agent.last, since: agent.since,
      sleep: agent.sleep, dbstrings: agent.shape.nodes.map((_, i) => (agent.statuses[i] === 3 ? `db ${i}` : null)) });
  }
  if (parts[3] === 'history') {
    const before = Number(url.searchParams.get('before') ?? agent.seq + 1);
    const count = Number(url.searchParams.get('count') ?? 500);
    const kept = agent.records;
    const window = kept.filter((r) => r.seq < before).slice(-count);
    let statuses = agent.statuses.slice();
    for (let k = kept.length - 1; k >= 0 && window.length > 0 && kept[k].seq >= window[0].seq; k--) {
      if (kept[k].type === 'status') statuses[kept[k].node] = kept[k].from;
    }
    return json(res, 200, { agent: agent.id, oldest: kept[0]?.seq ?? agent.seq + 1, newest: agent.seq,
      records: window, statuses_before: statuses, shape_before: agent.shape.shape });
  }
  if (parts[3] === 'stats') {
    const visits = agent.shape.nodes.map(() => 0);
    for (const r of agent.records) if (r.type === 'status' && r.to === 3) visits[r.node]++;
    return json(res, 200, { shape: agent.shape.shape, agents: 1, thinks: agent.think, nodes: visits.map((v, node) => ({
      node, visits: v, successes: 0, failures: 0, aborts: 0, runs: v, thinks: v, time: 0, longest: 0, errors: 0, running: 0 })) });
  }
  return json(res, 404, { error: 'no such path' });
}

// ---- the smallest WebSocket (RFC 6455): text frames, server unmasked, client masked
function send(socket, obj) {
  const data = Buffer.from(JSON.stringify(obj));
  const head = data.length < 126 ? Buffer.from([0x81, data.length])
    : data.length < 65536 ? Buffer.from([0x81, 126, data.length >> 8, data.length & 255])
      : Buffer.concat([Buffer.from([0x81, 127]), (() => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(data.length)); return b; })()]);
  socket.write(Buffer.concat([head, data]));
}

const server = http.createServer(answer);
server.on('upgrade', (req, socket) => {
  const key = req.headers['sec-websocket-key'];
  const accept = crypto.createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
  const client = { socket, ids: [] };
  clients.add(client);
  send(socket, { type: 'hello', mode: 'live', frame, time });
  let buf = Buffer.alloc(0);
  socket.on('data', (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    while (buf.length >= 6) {
      let len = buf[1] & 127;
      let at = 2;
      if (len === 126) { len = buf.readUInt16BE(2); at = 4; }
      if (buf.length < at + 4 + len) return;
      const mask = buf.subarray(at, at + 4);
      const data = Buffer.from(buf.subarray(at + 4, at + 4 + len).map((b, k) => b ^ mask[k % 4]));
      const op = buf[0] & 15;
      buf = buf.subarray(at + 4 + len);
      if (op === 8) return socket.end();
      try {
        const msg = JSON.parse(data.toString());
        if (Array.isArray(msg.subscribe)) client.ids = msg.subscribe;
      } catch { send(socket, { type: 'error', error: 'not JSON' }); }
    }
  });
  socket.on('close', () => clients.delete(client));
  socket.on('error', () => clients.delete(client));
});
server.listen(port, '127.0.0.1', () => {
  process.stderr.write(`viewer: http://127.0.0.1:${server.address().port}/\n`);
});
