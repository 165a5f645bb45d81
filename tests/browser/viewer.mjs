// SPDX-License-Identifier: MIT
// The viewer's page in a real browser (docs/viewer.md, "Browser tests"): Debian's chromium,
// headless, driven through the DevTools protocol by playwright-core (no browser download).
//   node viewer.mjs OUT BT_ARENA BT_LOG [LUA_CPATH_DIR]
// (LUA_CPATH_DIR: where the build's bt.so is, for lua5.4 and big_tree.lua; BT_LUA_PRELOAD: what
// that lua5.4 preloads in the sanitizer build; BT_CHROMIUM: the browser, default /usr/bin/chromium)
// 1. bt-arena --viewer 0, live (in script): the agent list has the arena's agents (ids and labels as
//    /api/agents), selecting one draws its nodes by name (as its shape), a status changes on
//    screen, stepping and scrubbing back shows the statuses that the server's history gives
//    (computed here from statuses_before and the records, not by the page's code, on a copy of
//    the history kept from before the page loads it: server_history), the map and the heat
//    overlay;
// 2. bt-arena --watch: a brain file edited, the page shows the reload and the new tree;
// 3. bt-arena --record FILE, then bt-log view FILE: the same as 1 on the replayed log (and the
//    timeline opens at the agent's last record with the records before it listed), and with
//    --token: the page passes on its URL's token; without it, it says it was refused;
// 4. a log of a 2,010-node tree (big_tree.lua) under bt-log view: the first drawing and a frame
//    of pan and zoom are timed and printed, not asserted.
// Screenshots go to OUT. Ends with "N passed, N failed"; exits 1 when a check failed.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const [out, arena_exe, btlog_exe, lua_cpath_dir] = process.argv.slice(2);
if (!out || !arena_exe || !btlog_exe) {
  console.error('usage: node viewer.mjs OUT BT_ARENA BT_LOG [LUA_CPATH_DIR]');
  process.exit(2);
}
fs.mkdirSync(out, { recursive: true });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bt-browser-'));
const STATUS = ['READY', 'SUCCESS', 'FAILED', 'RUNNING'];

let passed = 0;
let failed = 0;
function check(ok, what, detail = '') {
  if (ok) {
    passed++;
    console.log(`ok: ${what}`);
  } else {
    failed++;
    console.log(`FAIL: ${what}${detail ? `\n  ${detail}` : ''}`);
  }
  return ok;
}
const timings = [];
function timing(text) {
  timings.push(text);
  console.log(`time: ${text}`);
}

// ---- processes

const children = [];
/** Starts a program that prints "viewer: URL" (stderr or stdout); resolves to the URL. */
function start_server(exe, args, what) {
  return new Promise((resolve, reject) => {
    const child = spawn(exe, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`${what}: no "viewer: URL" line in 30 s; it printed:\n${seen}`)), 30000);
    const look = (chunk) => {
      seen += chunk;
      const m = /viewer: (http:\/\/\S+)/.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1] });
      }
    };
    child.stdout.setEncoding('utf8').on('data', look);
    child.stderr.setEncoding('utf8').on('data', look);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${what} ended (${code ?? signal}) before it printed its URL; it printed:\n${seen}`));
    });
  });
}

function stop(child) {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
}

function run(exe, args, env = {}) {
  const r = spawnSync(exe, args, { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120000 });
  if (r.status !== 0) throw new Error(`${exe} ${args.join(' ')} failed (${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`);
  return r;
}

/** GET a JSON answer of the server at `base` (its token, if its URL has one, as a header). */
async function api(base, p) {
  const token = new URL(base).searchParams.get('token');
  const response = await fetch(new URL(p, base), token ? { headers: { Authorization: `Bearer ${token}` } } : {});
  const body = await response.json();
  if (!response.ok) throw new Error(`${p}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

/**
 * What the server had of an agent's history, from before the page loads any of it: every record it
 * kept (a record's seq never changes) and the statuses before the first, and, with `follow`, every
 * record after, fetched twice a second until stop_history. Live, the server keeps only an agent's
 * newest records (the arena 2048) and drops the oldest as new ones come, at the arena's pace,
 * whatever the test's: a record the page loaded may be gone by the time the test asks for it, the
 * likelier the slower the machine. So the test keeps what the server had.
 */
async function server_history(base, id, follow = false) {
  const newest = await api(base, `/api/agents/${id}/history?count=2000`);
  const h = { base, id, before: newest.statuses_before, records: newest.records ?? [], first: newest.newest + 1 };
  if (h.records.length > 0) h.first = h.records[0].seq;
  if (h.records.length > 0 && h.first > newest.oldest) { // the rest of what it keeps
    const older = await api(base, `/api/agents/${id}/history?before=${h.first}&count=2000`);
    if ((older.records ?? []).at(-1)?.seq === h.first - 1) {
      h.records = older.records.concat(h.records);
      h.before = older.statuses_before;
      h.first = older.records[0].seq;
    }
  }
  h.fetching = Promise.resolve();
  h.error = null;
  if (follow) h.timer = setInterval(() => catch_up(h), 500);
  return h;
}

function stop_history(h) {
  if (h?.timer) clearInterval(h.timer);
}

/** Adds to h the records the server has after it (one fetch after the other). */
function catch_up(h) {
  h.fetching = h.fetching.then(async () => {
    for (let more = true; more && !h.error;) {
      const newest = h.first + h.records.length - 1;
      // the 2000 records after the newest kept (the server gives its newest 2000 when it has fewer)
      const w = await api(h.base, `/api/agents/${h.id}/history?before=${newest + 2001}&count=2000`);
      const records = (w.records ?? []).filter((r) => r.seq > newest);
      if (records.length > 0 && records[0].seq !== newest + 1) {
        h.error = `the server no longer had record ${newest + 1} of agent ${h.id} when the test asked (its oldest: ${w.oldest})`;
      } else {
        h.records.push(...records);
      }
      more = records.length === 2000;
    }
  }).catch((err) => { h.error = String(err); });
  return h.fetching;
}

/**
 * The statuses after record `seq` by the server's history h: its statuses before its first
 * record, with the status records up to `seq` applied. null when `seq` is older than h.
 */
async function statuses_at(h, seq) {
  if (seq > h.first + h.records.length - 1) await catch_up(h);
  if (h.error) throw new Error(h.error);
  if (seq < h.first - 1) return null;
  const statuses = h.before.slice();
  for (const r of h.records) {
    if (r.seq > seq) break;
    if (r.type === 'status') statuses[r.node] = r.to;
  }
  return statuses.map((s) => STATUS[s]);
}

// ---- the page

/**
 * What the page shows once its timeline is settled (no step, |◀ or "older" under way: no
 * data-busy): the record shown and the tree's statuses, read in one go.
 */
async function page_shown(page) {
  for (;;) {
    await page.waitForSelector('#timeline:not([data-busy])', { state: 'attached', timeout: 30000 });
    const shown = await page.evaluate(() => {
      const tl = document.getElementById('timeline');
      const statuses = [];
      for (const n of document.querySelectorAll('#tree [data-node-index]')) {
        statuses[Number(n.getAttribute('data-node-index'))] = n.getAttribute('data-status');
      }
      return { busy: tl.hasAttribute('data-busy'), seq: Number(tl.dataset.seq), last: Number(tl.dataset.lastSeq), statuses };
    });
    if (!shown.busy) return shown;
  }
}

async function page_statuses(page) {
  return page.$$eval('#tree [data-node-index]', (nodes) => {
    const out = [];
    for (const n of nodes) out[Number(n.getAttribute('data-node-index'))] = n.getAttribute('data-status');
    return out;
  });
}

async function page_names(page) {
  return page.$$eval('#tree [data-node-index]', (nodes) => {
    const out = [];
    for (const n of nodes) out[Number(n.getAttribute('data-node-index'))] = n.getAttribute('data-name');
    return out;
  });
}

async function select(page, id) {
  const t0 = Date.now();
  await page.click(`#agent-list [data-agent-id="${id}"]`);
  await page.waitForSelector(`#tree[data-agent="${id}"][data-ready]`, { state: 'attached', timeout: 15000 });
  return Date.now() - t0;
}

// select, live: the arena's world goes on while the test reads it, and a creature may die (and
// its body go) between the test's choice and the page's requests; then the server answers 404
// for it and this returns null, for the caller to choose another.
async function select_live(page, url, id) {
  try {
    return await select(page, id);
  } catch (err) {
    const gone = await api(url, `/api/agents/${id}`).then(() => false, (e) => / 404 /.test(e.message));
    if (gone) return null;
    throw err;
  }
}

// The live agents with a tree, the most active first.
async function most_active(url) {
  const agents = (await api(url, '/api/agents')).agents.filter((a) => a.shape);
  agents.sort((a, b) => b.activity - a.activity || a.id - b.id);
  return agents;
}

async function agents_match(page, base, what) {
  // the list and /api/agents are read at different moments; births and deaths settle in a poll
  let detail = '';
  for (let attempt = 0; attempt < 20; attempt++) {
    const listed = await page.$$eval('#agent-list [data-agent-id]', (items) =>
      items.map((li) => `${li.getAttribute('data-agent-id')} ${li.getAttribute('data-label')}`));
    const served = (await api(base, '/api/agents')).agents.map((a) => `${a.id} ${a.label}`);
    const a = [...listed].sort().join('\n');
    const b = [...served].slice(0, 300).sort().join('\n');
    if (served.length > 0 && a === b) return check(true, `${what}: the list has the ${served.length} agents of /api/agents, by id and label`);
    detail = `page ${listed.length}, server ${served.length}: first page ${listed.slice(0, 3)} / server ${served.slice(0, 3)}`;
    await page.waitForTimeout(300);
  }
  return check(false, `${what}: the list has the agents of /api/agents`, detail);
}

async function names_match(page, base, id, what) {
  const state = await api(base, `/api/agents/${id}`);
  const shape = await api(base, `/api/shapes/${state.shape}`);
  const names = await page_names(page);
  const expected = shape.nodes.map((n) => n.name);
  return check(names.length === expected.length && names.every((n, i) => n === expected[i]),
    `${what}: agent ${id}'s ${expected.length} nodes are drawn with their shape's names, in order`,
    `page: ${names.slice(0, 6).join(', ')}… server: ${expected.slice(0, 6).join(', ')}…`);
}

/** The page's statuses against the server's history h (server_history) at the record shown. */
async function compare_with_history(page, h, what) {
  const { seq, last, statuses: shown } = await page_shown(page);
  const statuses = await statuses_at(h, seq);
  const same = statuses !== null && statuses.length === shown.length && statuses.every((s, i) => s === shown[i]);
  check(same, `${what}: the statuses shown after record ${seq} are those of the server's history`,
    `shown ${shown.join(',')}\n  history ${statuses?.join(',') ?? `(none: record ${seq} is older than the server had, from ${h.first})`}`);
  return { seq, last };
}

/**
 * Scrubbing: steps back and forth with keys and buttons, compared with the server's history h
 * (asked for before the page selected the agent) each time.
 */
async function scrub_checks(page, h, what, live) {
  const start = Number(await page.getAttribute('#timeline', 'data-seq'));
  for (let k = 0; k < 5; k++) await page.keyboard.press('ArrowLeft');
  // live, records that came between reading `start` and the first key press are stepped back over
  // too: the check is against the newest record loaded, read with the position in one go
  const { seq: back, last } = await compare_with_history(page, h, `${what}, 5 transitions back (← key)`);
  check(back < last && (live || back < start || start === 0),
    `${what}: stepping back moved to an earlier record (${start} → ${back}, the newest loaded ${last})`);
  if (live) check((await page.getAttribute('#timeline', 'data-following')) === 'false', `${what}: stepping back stops following live`);
  await page.click('#tl-back');
  await page.click('#tl-back');
  await compare_with_history(page, h, `${what}, 2 more back (◀ button)`);
  // far back: the older windows, then the first record kept
  await page.click('#tl-older');
  await page.click('#tl-start');
  const { seq: first } = await compare_with_history(page, h, `${what}, the first record loaded (|◀)`);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  const { seq: fwd } = await compare_with_history(page, h, `${what}, 2 transitions forward (→ key)`);
  check(fwd > first, `${what}: stepping forward moved to a later record (${first} → ${fwd})`);
  // the slider: halfway
  await page.$eval('#tl-slider', (s) => {
    s.value = String(Math.floor(Number(s.max) / 2));
    s.dispatchEvent(new Event('input', { bubbles: true }));
  });
  await compare_with_history(page, h, `${what}, the slider halfway`);
}

async function open_page(context, url) {
  const page = await context.newPage();
  page.on('pageerror', (err) => check(false, `no script error on the page`, err.message));
  await page.goto(url);
  await page.waitForSelector('body[data-ready]', { timeout: 15000 });
  return page;
}

// ---- the runs

async function live_checks(context) {
  // the arena at its real pace (30 ticks a second), which it keeps only with a terminal to draw
  // in: script(1) gives it one (headless, it runs as fast as it can, and the server's history
  // of an agent would be gone before the test could read it)
  const quote = (a) => `'${a.replace(/'/g, "'\\''")}'`;
  const { child, url } = await start_server('script',
    ['-qfec', `stty cols 140 rows 45; exec ${quote(arena_exe)} --viewer 0 --agents 24 --seed 5 --seconds 600`, '/dev/null'],
    'bt-arena --viewer (in script)');
  let h = null;
  try {
    const page = await open_page(context, url);
    check((await page.getAttribute('body', 'data-mode')) === 'live', 'live: the page says it is live');
    await agents_match(page, url, 'live');
    // the most active agent (the next one if it dies before the page has it)
    const agents = await most_active(url);
    let id = null, ms = null;
    for (const a of agents) {
      ms = await select_live(page, url, a.id);
      if (ms !== null) {
        id = a.id;
        break;
      }
    }
    check(id !== null, 'live: an agent selected');
    const drawn = await page.evaluate(() => window.btViewer.app.perf.first_draw_ms.at(-1));
    timing(`live: first drawing of agent ${id}: ${drawn.toFixed(0)} ms in the page, ${ms} ms from the click`);
    await names_match(page, url, id, 'live');
    check((await page.getAttribute('#agent-list [aria-selected="true"]', 'data-agent-id')) === String(id),
      'live: the selected agent is marked in the list');
    // a status changes on screen (an agent busy a moment ago may rest now: a few tries, each on
    // the agent most active then)
    let changed = false, shown = id;
    for (let tries = 0; tries < 3 && !changed; tries++) {
      if (tries > 0) {
        shown = (await most_active(url))[0].id;
        if ((await select_live(page, url, shown)) === null) continue;
      }
      const before = (await page_statuses(page)).join(',');
      for (let k = 0; k < 100 && !changed; k++) {
        await page.waitForTimeout(100);
        changed = (await page_statuses(page)).join(',') !== before;
      }
    }
    check(changed, 'live: a status changes on screen while the arena runs');
    // the scrubbing below is agent id's, against what the server had of it before the page loaded
    // any of it: the page selects it again
    h = await server_history(url, id, true);
    while ((await select_live(page, url, id)) === null) { // it died since: the most active one then
      id = (await most_active(url))[0].id;
      h = await server_history(url, id, true);
    }
    await page.screenshot({ path: path.join(out, 'viewer-live.png') });
    await scrub_checks(page, h, 'live', true);
    await page.screenshot({ path: path.join(out, 'viewer-scrub.png') });
    await page.click('#tl-live');
    await page.waitForSelector('#timeline[data-following="true"]', { state: 'attached', timeout: 5000 });
    check(true, 'live: the live button follows again');
    // heat overlay
    await page.click('#heat-toggle');
    await page.waitForSelector('#tree.heat-on [data-heat]', { state: 'attached', timeout: 5000 }).catch(() => {});
    const heated = await page.$$eval('#tree [data-node-index]', (n) => n.filter((e) => e.hasAttribute('data-heat')).length);
    const drawn_nodes = await page.$$eval('#tree [data-node-index]', (n) => n.length);
    check(heated === drawn_nodes && drawn_nodes > 0, 'live: the heat overlay marks every node drawn with its visits');
    await page.screenshot({ path: path.join(out, 'viewer-heat.png') });
    await page.click('#heat-toggle');
    // the search box and the brain filter
    const some = agents.find((a) => a.id !== id);
    await page.fill('#agent-search', some.label);
    await page.waitForTimeout(100);
    const found = await page.$$eval('#agent-list [data-agent-id]', (items) => items.map((li) =>
      [li.getAttribute('data-agent-id'), li.getAttribute('data-label'), li.getAttribute('data-brain'), li.getAttribute('data-running')].join(' ').toLowerCase()));
    const words = some.label.toLowerCase().split(/\s+/);
    check(found.some((text) => text.startsWith(`${some.id} ${some.label.toLowerCase()} `)) && found.length < agents.length
      && found.every((text) => words.every((w) => text.includes(w))),
      `live: searching "${some.label}" lists that agent and only agents with every word of it`);
    await page.fill('#agent-search', '');
    await page.fill('#filter-label', some.label);
    await page.waitForTimeout(100);
    const labelled = await page.$$eval('#agent-list [data-agent-id]', (items) => items.map((li) => li.getAttribute('data-label')));
    check(labelled.length > 0 && labelled.every((l) => l.toLowerCase().includes(some.label.toLowerCase())),
      `live: the label filter "${some.label}" lists only the agents whose label has it`);
    await page.fill('#filter-label', '');
    await page.selectOption('#filter-brain', some.brain);
    await page.waitForTimeout(100);
    const brains = await page.$$eval('#agent-list [data-agent-id]', (items) => items.map((li) => li.getAttribute('data-brain')));
    check(brains.length > 0 && brains.every((b) => b === some.brain), `live: the brain filter lists only ${some.brain}'s agents`);
    await page.selectOption('#filter-brain', '');
    // the map: a click on a dot selects its agent
    const dots = await page.$$eval('#map [data-map-agent-id]', (d) => d.map((e) => Number(e.getAttribute('data-map-agent-id'))));
    if (check(dots.length > 0, 'live: the map has a dot per agent with a position')) {
      const other = dots.find((d) => d !== id);
      await page.locator(`#map [data-map-agent-id="${other}"]`).dispatchEvent('click');
      await page.waitForSelector(`#tree[data-agent="${other}"][data-ready]`, { state: 'attached', timeout: 15000 });
      check(true, 'live: clicking a dot on the map selects its agent');
    }
    await page.close();
  } finally {
    stop_history(h);
    stop(child);
  }
}

/** A hot reload (--watch): the page says so and draws the new tree, as it happens. */
async function reload_checks(context) {
  const src = path.resolve(here, '..', '..');
  const data = path.join(tmp, 'data');
  fs.cpSync(path.join(src, 'brains'), path.join(data, 'brains'), { recursive: true });
  fs.cpSync(path.join(src, 'behaviours'), path.join(data, 'behaviours'), { recursive: true });
  const quote = (a) => `'${a.replace(/'/g, "'\\''")}'`;
  const { child, url } = await start_server('script',
    ['-qfec', `stty cols 140 rows 45; exec ${quote(arena_exe)} --viewer 0 --agents 8 --seed 2 --seconds 600 --watch --data ${quote(data)}`, '/dev/null'],
    'bt-arena --viewer --watch (in script)');
  try {
    const page = await open_page(context, url);
    let sheep = null; // a sheep the page has drawn (the next one if a wolf gets it first)
    for (const a of (await api(url, '/api/agents')).agents.filter((a) => a.brain.includes('sheep') && a.shape)) {
      if ((await select_live(page, url, a.id)) !== null) {
        sheep = a;
        break;
      }
    }
    check(sheep !== null, 'reload: a sheep selected');
    const before = await page.$$eval('#tree [data-node-index]', (n) => n.length);
    const file = path.join(data, 'brains', 'sheep.lua');
    const text = fs.readFileSync(file, 'utf8');
    const edited = text.replace('return bt.PriorityNode({', 'return bt.PriorityNode({\n    bt.ConditionNode(function() return false end, "Added by the browser test"),');
    if (!check(edited !== text, 'reload: the sheep brain was edited')) return;
    fs.writeFileSync(file, edited);
    await page.waitForSelector('#tree [data-name="Added by the browser test"]', { state: 'attached', timeout: 20000 });
    const after = await page.$$eval('#tree [data-node-index]', (n) => n.length);
    check(after === before + 1, `reload: the page drew the reloaded tree (${before} → ${after} nodes) without being asked`);
    check((await page.$$eval('#banner .reload', (b) => b.length)) > 0, 'reload: a banner says the brain was reloaded');
    await names_match(page, url, sheep.id, 'reload');
    await page.screenshot({ path: path.join(out, 'viewer-reload.png') });
    await page.close();
  } finally {
    stop(child);
  }
}

async function log_checks(context) {
  const log = path.join(tmp, 'arena.btlog');
  run(arena_exe, ['--headless', '--agents', '16', '--seed', '3', '--seconds', '8', '--record', log]);
  const { child, url } = await start_server(btlog_exe, ['view', log, '--port', '0'], 'bt-log view');
  try {
    const page = await open_page(context, url);
    check((await page.getAttribute('body', 'data-mode')) === 'log', 'log: the page says it replays a log');
    check(await page.isHidden('#tl-live'), 'log: no live button');
    await agents_match(page, url, 'log');
    const agents = (await api(url, '/api/agents')).agents.filter((a) => a.shape && a.seq > 20);
    agents.sort((a, b) => b.seq - a.seq || a.id - b.id);
    const id = agents[0].id;
    const h = await server_history(url, id);
    await select(page, id);
    await names_match(page, url, id, 'log');
    // the timeline opens at the agent's last record, with the records before it listed: no key
    // needed to load them
    const opened = await page.$eval('#timeline', (tl) => ({ seq: Number(tl.dataset.seq), last: Number(tl.dataset.lastSeq),
      records: Number(tl.dataset.records), current: tl.querySelector('#tl-records .current')?.dataset.seq ?? null,
      listed: tl.querySelectorAll('#tl-records [data-seq]').length, range: document.getElementById('tl-range').textContent }));
    check(opened.seq === agents[0].seq && opened.last === agents[0].seq && opened.records > 0 && opened.listed > 0
      && opened.current === String(agents[0].seq),
      `log: the timeline opens at agent ${id}'s last record (${agents[0].seq}), the records before it listed`,
      `record shown ${opened.seq}, newest loaded ${opened.last}, ${opened.records} loaded, ${opened.listed} listed, current ${opened.current}: "${opened.range}"`);
    await compare_with_history(page, h, 'log, at the end of the log');
    await scrub_checks(page, h, 'log', false);
    await page.screenshot({ path: path.join(out, 'viewer-log.png') });
    // the heat overlay: a log's figures do not change, so each node shows its visits of /stats
    await page.click('#heat-toggle');
    await page.waitForSelector('#tree.heat-on [data-heat]', { state: 'attached', timeout: 5000 }).catch(() => {});
    const stats = await api(url, `/api/agents/${id}/stats`);
    const visits = new Map((stats.nodes ?? []).map((r) => [r.node, r.visits]));
    const heat = await page.$$eval('#tree [data-node-index]', (n) => n.map((e) => [Number(e.getAttribute('data-node-index')), e.getAttribute('data-heat')]));
    const wrong = heat.filter(([i, v]) => Number(v) !== (visits.get(i) ?? 0));
    check(heat.length > 0 && wrong.length === 0 && [...visits.values()].some((v) => v > 0),
      'log: the heat overlay shows each node\'s visits as /stats gives them', `differ: ${JSON.stringify(wrong.slice(0, 5))}`);
    // coverage: a node (not shared) that /stats says was neither visited nor run is marked not
    // covered, with a line in its title; every other node drawn is covered
    const ran = new Map((stats.nodes ?? []).map((r) => [r.node, (r.visits ?? 0) + (r.runs ?? 0) > 0]));
    const marks = await page.$$eval('#tree [data-node-index]', (n) => n.map((e) => [Number(e.getAttribute('data-node-index')),
      e.getAttribute('data-covered'), e.classList.contains('uncovered'), e.querySelector('title').textContent]));
    const unmarked = marks.filter(([i, c, u, title]) => c !== null
      && (c !== String(ran.get(i) ?? false) || u !== (c === 'false') || title.includes('not covered') !== (c === 'false')));
    check(marks.some(([, c]) => c !== null) && unmarked.length === 0,
      'log: the heat overlay marks the nodes never visited as not covered, apart from cold ones',
      `differ: ${JSON.stringify(unmarked.slice(0, 5))}`);
    await page.close();
  } finally {
    stop(child);
  }
}

/** A server with a token: the page passes on the token of its URL; without it, it is refused. */
async function token_checks(context) {
  const log = path.join(tmp, 'arena.btlog'); // log_checks recorded it
  const { child, url } = await start_server(btlog_exe, ['view', log, '--port', '0', '--token', 'Test-token_1'],
    'bt-log view --token');
  try {
    check(new URL(url).searchParams.get('token') === 'Test-token_1', 'token: the URL printed carries the token');
    const page = await open_page(context, url);
    await agents_match(page, url, 'token');
    const id = (await api(url, '/api/agents')).agents.find((a) => a.shape).id;
    await select(page, id);
    await names_match(page, url, id, 'token');
    await page.close();
    const bare = new URL(url);
    bare.search = '';
    const refused = await context.newPage();
    await refused.goto(bare.toString());
    const error = await refused.waitForSelector('body[data-error]', { state: 'attached', timeout: 10000 })
      .then(() => refused.getAttribute('body', 'data-error')).catch(() => null);
    const listed = await refused.$$eval('#agent-list [data-agent-id]', (items) => items.length);
    check(error !== null && /403/.test(error) && listed === 0, 'token: without it the page lists nothing and says the server refused it',
      `error: ${error}, ${listed} agents listed`);
    await refused.close();
  } finally {
    stop(child);
  }
}

async function big_tree_timing(context) {
  const log = path.join(tmp, 'big.btlog');
  const env = lua_cpath_dir ? { LUA_CPATH: `${lua_cpath_dir}/?.so;;` } : {};
  if (process.env.BT_LUA_PRELOAD) env.LD_PRELOAD = process.env.BT_LUA_PRELOAD; // the sanitizer build's
  run('lua5.4', [path.join(here, 'big_tree.lua'), log, '20'], env);
  const { child, url } = await start_server(btlog_exe, ['view', log, '--port', '0'], 'bt-log view (big tree)');
  try {
    const page = await open_page(context, url);
    const ms = await select(page, 1);
    const n = await page.$$eval('#tree [data-node-index]', (e) => e.length);
    const perf = await page.evaluate(() => ({ draw: window.btViewer.app.perf.first_draw_ms.at(-1), layout: window.btViewer.tree.layout_ms }));
    timing(`big tree (${n} nodes): first drawing ${perf.draw.toFixed(0)} ms (layout and SVG ${perf.layout.toFixed(0)} ms), ${ms} ms from the click; aim: under 1 s`);
    // frames of pan and zoom: each animation frame moves or zooms the view; the frame interval
    // includes the browser's style, layout, paint and compositing. Zoomed out as far as "fit"
    // goes (a scale of 0.1: some 200 nodes in view), then at the whole tree's scale (0.01)
    const time_frames = (scale) => page.evaluate((k_start) => new Promise((resolve) => {
      const tree = window.btViewer.tree;
      if (k_start === null) tree.fit();
      else tree.show_node(0, k_start);
      const times = [];
      let last = null;
      let k = 0;
      const frame = (t) => {
        if (last !== null) times.push(t - last);
        last = t;
        if (k < 60) tree.pan(4, 2);
        else tree.zoom(k % 2 ? 1.05 : 1 / 1.04, 400, 300);
        if (++k < 121) requestAnimationFrame(frame);
        else resolve(times);
      };
      requestAnimationFrame(frame);
    }), scale);
    for (const [what, scale] of [['as fitted (scale 0.1)', null], ['the whole tree in view (scale 0.01)', 0.01]]) {
      const frames = await time_frames(scale);
      frames.sort((a, b) => a - b);
      const mean = frames.reduce((s, t) => s + t, 0) / frames.length;
      timing(`big tree, ${what}: a frame of pan or zoom: mean ${mean.toFixed(1)} ms, median ${frames[frames.length >> 1].toFixed(1)} ms, worst ${frames.at(-1).toFixed(1)} ms over ${frames.length} frames; aim: under 16 ms`);
    }
    // the same with the mouse: a drag and wheel turns, as a person does
    const box = await page.locator('#tree').boundingBox();
    const t0 = Date.now();
    await page.mouse.move(box.x + 300, box.y + 200);
    await page.mouse.down();
    await page.mouse.move(box.x + 500, box.y + 300, { steps: 30 });
    await page.mouse.up();
    for (let k = 0; k < 20; k++) await page.mouse.wheel(0, k % 2 ? -120 : 100);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    timing(`big tree: 30 drag moves and 20 wheel turns through the DevTools protocol in ${Date.now() - t0} ms`);
    await page.evaluate(() => window.btViewer.tree.fit());
    await page.waitForTimeout(400); // sharp again once still
    await page.screenshot({ path: path.join(out, 'viewer-big.png') });
    check(n >= 2000, `big tree: ${n} nodes drawn`);
    await page.close();
  } finally {
    stop(child);
  }
}

// ---- main

const profile = fs.mkdtempSync(path.join(tmp, 'profile-'));
let context = null;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.BT_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  for (const [name, part] of [['live', live_checks], ['reload', reload_checks], ['log', log_checks], ['token', token_checks], ['big tree', big_tree_timing]]) {
    try {
      await part(context);
    } catch (err) {
      check(false, `${name}: ran to its end`, err.stack ?? String(err));
    }
  }
} catch (err) {
  check(false, 'chromium started', err.stack ?? String(err));
} finally {
  await context?.close().catch(() => {});
  for (const child of children) stop(child);
  fs.rmSync(tmp, { recursive: true, force: true });
}
console.log(`screenshots: ${out}`);
for (const t of timings) console.log(`time: ${t}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
