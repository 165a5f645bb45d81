// SPDX-License-Identifier: MIT
// The viewer's page in Firefox (docs/viewer.md, "Working on the page"): Debian's firefox-esr,
// headless, driven through WebDriver BiDi (Firefox's own remote protocol: node's WebSocket, no
// driver package) on a log the arena recorded, under bt-log view:
//   node --experimental-websocket firefox.mjs OUT BT_ARENA BT_LOG FIREFOX
// The list has the log's agents, an agent's nodes are drawn by name, a node's parameter as its
// kind shows it (/api/kinds), stepping back shows the statuses the server's history gives. A screenshot goes to OUT. Ends "N passed, N failed".
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { param_text } from '../../src/view/page/tree.js';

const [out, arena_exe, btlog_exe, firefox_exe] = process.argv.slice(2);
if (!out || !arena_exe || !btlog_exe || !firefox_exe) {
  console.error('usage: node --experimental-websocket firefox.mjs OUT BT_ARENA BT_LOG FIREFOX');
  process.exit(2);
}
fs.mkdirSync(out, { recursive: true });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bt-firefox-'));
const STATUS = ['READY', 'SUCCESS', 'FAILED', 'RUNNING'];
let passed = 0;
let failed = 0;
function check(ok, what, detail = '') {
  if (ok) passed++;
  else failed++;
  console.log(ok ? `ok: ${what}` : `FAIL: ${what}${detail ? `\n  ${detail}` : ''}`);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const children = [];

/** Starts a program; resolves to the first match of `pattern` in what it prints. */
function start(exe, args, pattern, what, env = process.env) {
  return new Promise((resolve, reject) => {
    const child = spawn(exe, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    children.push(child);
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`${what}: nothing like ${pattern} in 60 s:\n${seen}`)), 60000);
    const look = (chunk) => {
      seen += chunk;
      const m = pattern.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout.setEncoding('utf8').on('data', look);
    child.stderr.setEncoding('utf8').on('data', look);
    child.on('exit', (code) => reject(new Error(`${what} ended (${code}):\n${seen}`)));
  });
}

async function api(base, p) {
  const response = await fetch(new URL(p, base));
  const body = await response.json();
  if (!response.ok) throw new Error(`${p}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

/** WebDriver BiDi over a WebSocket: send(method, params) resolves to the result. */
async function bidi(url) {
  const ws = new WebSocket(url);
  const pending = new Map();
  let next = 0;
  ws.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.id !== undefined && pending.has(msg.id)) {
      const { resolve, reject } = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.type === 'error') reject(new Error(`${msg.error}: ${msg.message}`));
      else resolve(msg.result);
    }
  };
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = () => reject(new Error(`cannot connect to ${url}`));
  });
  return {
    send: (method, params) => new Promise((resolve, reject) => {
      const id = ++next;
      pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ id, method, params }));
    }),
    close: () => ws.close(),
  };
}

try {
  const log = path.join(tmp, 'arena.btlog');
  const r = spawnSync(arena_exe, ['--headless', '--agents', '12', '--seed', '4', '--seconds', '6', '--record', log], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`bt-arena --record failed: ${r.stderr}`);
  const base = await start(btlog_exe, ['view', log, '--port', '0'], /viewer: (http:\/\/\S+)/, 'bt-log view');
  const agents = (await api(base, '/api/agents')).agents;
  const agent = agents.filter((a) => a.shape).sort((a, b) => b.seq - a.seq || a.id - b.id)[0];
  const shape = await api(base, `/api/shapes/${agent.shape}`);

  const profile = fs.mkdtempSync(path.join(tmp, 'profile-'));
  const bidi_url = await start(firefox_exe, ['--headless', '--no-remote', '--profile', profile, '--remote-debugging-port', '0', 'about:blank'],
    /WebDriver BiDi listening on (ws:\/\/\S+)/, 'firefox', { ...process.env, HOME: tmp, MOZ_CRASHREPORTER_DISABLE: '1' });
  const b = await bidi(`${bidi_url}/session`);
  await b.send('session.new', { capabilities: {} });
  const context = (await b.send('browsingContext.getTree', {})).contexts[0].context;
  await b.send('browsingContext.setViewport', { context, viewport: { width: 1400, height: 900 } }).catch(() => {});
  const evaluate = async (expression) => {
    const res = await b.send('script.evaluate', { expression, target: { context }, awaitPromise: true });
    if (res.type === 'exception') throw new Error(`${expression}: ${res.exceptionDetails?.text}`);
    return res.result?.value;
  };
  const wait_for = async (expression, what) => {
    for (let k = 0; k < 150; k++) {
      if (await evaluate(expression)) return true;
      await sleep(100);
    }
    throw new Error(`firefox: waited 15 s for ${what}`);
  };
  await b.send('browsingContext.navigate', { context, url: `${base}#agent=${agent.id}`, wait: 'complete' });
  await wait_for(`document.querySelector('#tree[data-agent="${agent.id}"][data-ready]') !== null`, 'the agent drawn');

  check(await evaluate("document.body.dataset.mode") === 'log', 'firefox: the page says it replays a log');
  const listed = JSON.parse(await evaluate("JSON.stringify([...document.querySelectorAll('#agent-list [data-agent-id]')].map((li) => li.dataset.agentId + ' ' + li.dataset.label).sort())"));
  const served = agents.map((a) => `${a.id} ${a.label}`).sort();
  check(JSON.stringify(listed) === JSON.stringify(served), `firefox: the list has the ${served.length} agents of /api/agents`);
  const names = JSON.parse(await evaluate("JSON.stringify([...document.querySelectorAll('#tree [data-node-index]')].sort((a, b) => a.dataset.nodeIndex - b.dataset.nodeIndex).map((n) => n.dataset.name))"));
  check(JSON.stringify(names) === JSON.stringify(shape.nodes.map((n) => n.name)), `firefox: agent ${agent.id}'s ${shape.nodes.length} nodes are drawn by name`);
  // a node's parameter as its kind shows it (the kind table of /api/kinds: "period 0.25"), in its title
  const kinds = new Map((await api(base, '/api/kinds')).kinds.map((k) => [k.name, k]));
  const p = shape.nodes.findIndex((n) => n.param != null && kinds.get(n.kind)?.param);
  const want = p >= 0 ? `${shape.nodes[p].name} (${shape.nodes[p].kind}) ${param_text(shape.nodes[p].param, kinds.get(shape.nodes[p].kind))}` : '';
  const title = p >= 0 ? await evaluate(`document.querySelector('#tree [data-node-index="${p}"] title')?.textContent ?? null`) : null;
  check(p >= 0 && title === want && !want.includes(' param '), `firefox: node ${p}'s parameter is shown as its kind shows it: ${want}`, `title ${title}`);

  for (let k = 0; k < 4; k++) await evaluate("document.getElementById('tl-back').click()");
  // once the steps are done (no data-busy), the record shown and the statuses, read in one go
  await wait_for("!document.getElementById('timeline').hasAttribute('data-busy')", 'the steps back done');
  const [seq, shown] = JSON.parse(await evaluate("JSON.stringify([Number(document.getElementById('timeline').dataset.seq), [...document.querySelectorAll('#tree [data-node-index]')].sort((a, b) => a.dataset.nodeIndex - b.dataset.nodeIndex).map((n) => n.dataset.status)])"));
  const w = await api(base, `/api/agents/${agent.id}/history?before=${seq + 1}&count=2000`);
  const expected = w.statuses_before.slice();
  for (const rec of w.records) if (rec.type === 'status') expected[rec.node] = rec.to;
  check(seq < agent.seq && w.records.at(-1)?.seq === seq && JSON.stringify(expected.map((s) => STATUS[s])) === JSON.stringify(shown),
    `firefox: 4 steps back (record ${seq} of ${agent.seq}), the statuses shown are the server's history's`,
    `shown ${shown}\n  history ${expected.map((s) => STATUS[s])}`);
  const shot = await b.send('browsingContext.captureScreenshot', { context });
  fs.writeFileSync(path.join(out, 'viewer-firefox.png'), Buffer.from(shot.data, 'base64'));
  await b.send('session.end', {}).catch(() => {});
  b.close();
} catch (err) {
  check(false, 'firefox: ran to its end', err.stack ?? String(err));
} finally {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  await sleep(300);
  fs.rmSync(tmp, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
