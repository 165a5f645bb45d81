// SPDX-License-Identifier: MIT
// The viewer's page: wires the agent list, the map, the tree and the timeline to the server's API
// and stream (docs/viewer.md, "The page"). The logic lives in agents.js, layout.js and
// history.js, which the unit tests run under node; this file is the DOM and the fetching.
import { api, Stream, token } from './requests.js';
import { ActivityMeter, agents_brains, agents_filter, agents_sort } from './agents.js';
import { History, STATUS_NAMES, is_transition, keys_after } from './history.js';
import { MapView } from './map.js';
import { TreeView, format_seconds, kind_table, param_text } from './tree.js';

const $ = (id) => document.getElementById(id);
const LIST_MAX = 300; // list items drawn at once; the count says how many match
const WINDOW = 500; // records fetched per history window

const app = {
  info: null,
  live: true, // false for a log (info.mode == "log")
  agents: [],
  by_id: new Map(),
  selected: null,
  generation: 0, // bumped at each selection, so late answers for an older one are dropped
  loading: false,
  buffered: [], // stream records for the selected agent that came while it loaded
  stale: false, // records were missed while scrubbed back: "live" loads the agent again
  skipped: 0, // records the page never got (the server dropped them for it), for the timeline
  state: null, // GET /api/agents/<id> of the selected agent (dbstrings, last, since, sleep)
  shape: null,
  history: null,
  following: true,
  heat: false,
  server_time: null,
  activity: new ActivityMeter(5),
  perf: { first_draw_ms: [], layout_ms: [] },
};

let tree;
let map;
let stream = null;

function banner(text, kind = 'info') {
  const b = $('banner');
  const item = document.createElement('div');
  item.className = `banner-item ${kind}`;
  item.textContent = text;
  b.prepend(item);
  while (b.children.length > 3) b.lastChild.remove();
  setTimeout(() => item.remove(), 8000);
}

function show_error(err) {
  console.error(err);
  const message = String(err.message ?? err);
  banner(message, 'error');
  if (/: 403/.test(message)) {
    // refused: Host, Origin or token (docs/viewer.md, "Who may ask")
    document.body.dataset.error = message;
    $('connection').textContent = 'refused (a token?)';
  }
}

// ---- the agent list

function list_filters() {
  return { search: $('agent-search').value, brain: $('filter-brain').value, label: $('filter-label').value };
}

function agent_activity(agent) {
  const live = app.activity.activity(agent.id);
  return live ?? agent.activity ?? 0;
}

let list_pending = false;
function render_list_soon() {
  if (list_pending) return;
  list_pending = true;
  setTimeout(() => {
    list_pending = false;
    render_list();
  }, 250);
}

/** The list (and with `with_map`, the map: positions change only with a new /api/agents). */
function render_list(with_map = false) {
  const with_activity = app.agents.map((a) => ({ ...a, activity: agent_activity(a) }));
  let matching = agents_sort(agents_filter(with_activity, list_filters()));
  if (app.list_hovered && app.list_order) {
    // under the pointer the order stays (a click must land on the agent it aimed at); the
    // figures still change, and agents new to the list go at the end
    const at = new Map(app.list_order.map((id, k) => [id, k]));
    matching = matching.slice().sort((a, b) => (at.get(a.id) ?? Infinity) - (at.get(b.id) ?? Infinity));
  }
  app.list_order = matching.map((a) => a.id);
  const list = $('agent-list');
  const items = document.createDocumentFragment();
  for (const a of matching.slice(0, LIST_MAX)) {
    const li = document.createElement('li');
    li.dataset.agentId = a.id;
    li.dataset.label = a.label ?? '';
    li.dataset.brain = a.brain ?? '';
    li.dataset.activity = a.activity.toFixed(2);
    li.dataset.running = Array.isArray(a.running) ? a.running.join(' ') : '';
    li.setAttribute('role', 'option');
    li.setAttribute('aria-selected', a.id === app.selected ? 'true' : 'false');
    const label = document.createElement('span');
    label.className = 'agent-label';
    label.textContent = a.label ?? `agent ${a.id}`;
    const activity = document.createElement('span');
    activity.className = 'agent-activity';
    activity.textContent = `${a.activity.toFixed(1)}/s`;
    activity.title = 'status transitions per second, last 5 s';
    const brain = document.createElement('span');
    brain.className = 'agent-brain';
    brain.textContent = a.brain ?? '';
    const running = document.createElement('span');
    running.className = 'agent-running';
    running.textContent = Array.isArray(a.running) ? a.running.slice(1).join(' › ') : '';
    running.title = Array.isArray(a.running) ? a.running.join(' › ') : '';
    li.append(label, activity, brain, running);
    items.appendChild(li);
  }
  list.replaceChildren(items);
  $('agent-count').textContent = matching.length === app.agents.length
    ? `${app.agents.length} agents`
    : `${matching.length} of ${app.agents.length} agents`
      + (matching.length > LIST_MAX ? ` (first ${LIST_MAX} shown)` : '');
  if (with_map || app.filters_changed) map.update(app.agents, new Set(matching.map((a) => a.id)));
  app.filters_changed = false;
}

function on_filters_changed() {
  app.filters_changed = true;
  render_list();
}

function update_brain_filter() {
  const select = $('filter-brain');
  const brains = agents_brains(app.agents);
  const have = [...select.options].slice(1).map((o) => o.value);
  if (have.join('\n') === brains.join('\n')) return;
  const keep = select.value;
  select.replaceChildren(new Option('all brains', ''), ...brains.map((b) => new Option(b, b)));
  select.value = brains.includes(keep) ? keep : '';
}

async function refresh_agents() {
  const data = await api.agents();
  app.agents = data.agents ?? [];
  app.by_id = new Map(app.agents.map((a) => [a.id, a]));
  if (typeof data.time === 'number' && app.server_time === null) app.server_time = data.time;
  if (app.selected !== null && !app.by_id.has(app.selected) && !app.gone) {
    // the host removed it (a creature died): its tree and history stay on screen, marked
    app.gone = true;
    banner(`${$('agent-title').textContent} is gone`, 'warn');
    $('agent-title').textContent += ' (gone)';
    document.body.dataset.gone = '';
  }
  update_brain_filter();
  render_list(true);
}

// ---- the selected agent

async function select_agent(id) {
  if (!Number.isFinite(id)) return;
  const generation = ++app.generation;
  const t0 = performance.now();
  app.selected = id;
  app.gone = false;
  delete document.body.dataset.gone;
  app.loading = true;
  app.buffered = [];
  map.select(id);
  render_list(true);
  document.body.dataset.selected = id;
  $('tree').removeAttribute('data-ready');
  stream?.subscribe([id]);
  history.replaceState(null, '', `${location.pathname}${location.search}#agent=${id}`);
  try {
    const state = await api.agent(id);
    if (generation !== app.generation) return;
    // its shape, and its last records up to the state's: the timeline starts at the last record
    // with the records before it listed (a log has no stream to bring any)
    // (live, the agent may die meanwhile, its records with it: its state is drawn all the same)
    const [shape, recent] = await Promise.all([api.shape(state.shape),
      state.seq > 0 ? api.history(id, state.seq + 1, WINDOW).catch(() => null) : null]);
    if (generation !== app.generation) return;
    app.state = state;
    app.shape = shape;
    app.history = new History(state.statuses, state.seq, undefined, state.keys ?? []);
    // live, the host may have dropped those records meanwhile: the timeline then starts empty
    if (recent && (recent.records ?? []).at(-1)?.seq === state.seq) app.history.prepend(recent);
    app.following = app.live;
    app.stale = false;
    app.skipped = 0;
    const agent = app.by_id.get(id);
    $('agent-title').textContent = state.label ?? agent?.label ?? `agent ${id}`;
    $('agent-brain').textContent = `${state.brain ?? agent?.brain ?? ''} · shape ${shape.name ?? ''} ${state.shape}`
      + ` · ${shape.nodes.length} nodes`;
    const tree_svg = $('tree');
    tree_svg.dataset.agent = id;
    tree_svg.dataset.shape = state.shape;
    tree.set_shape(shape);
    app.loading = false;
    const buffered = app.buffered;
    app.buffered = [];
    if (buffered.length > 0) on_records(buffered); // before any record that comes after
    render_state();
    tree.initial_view();
    if (app.heat) await load_heat();
    tree_svg.dataset.ready = '';
    const ms = performance.now() - t0;
    app.perf.first_draw_ms.push(ms);
    app.perf.layout_ms.push(tree.layout_ms);
    $('perf').textContent = `drawn in ${ms.toFixed(0)} ms`;
  } catch (err) {
    if (generation === app.generation) {
      app.loading = false;
      show_error(err);
    }
  }
}

let records_queue = Promise.resolve();
/** Stream records of the selected agent, taken one message after the other. */
function on_records(records) {
  records_queue = records_queue.then(() => take_records(records)).catch(show_error);
  return records_queue;
}

/**
 * Records of the selected agent into its history, then drawn. A gap (messages the server dropped
 * for this page) is filled from /history when it is small; else, when following, the history
 * starts again at the new records; when scrubbed back, newer records wait for "live".
 */
async function take_records(records) {
  if (app.loading) {
    app.buffered.push(...records);
    return;
  }
  const h = app.history;
  if (!h || app.stale) return;
  const generation = app.generation;
  const fresh = records.filter((r) => r.seq > h.last_seq);
  if (fresh.length === 0) return;
  const reload = fresh.find((r) => r.type === 'reload');
  if (fresh[0].seq > h.last_seq + 1) {
    const missing = fresh[0].seq - h.last_seq - 1;
    let filled = false;
    if (missing <= 2000) {
      const window = await api.history(app.selected, fresh[0].seq, missing);
      if (generation !== app.generation) return;
      filled = (window.records ?? [])[0]?.seq === h.last_seq + 1 && !h.append(window.records);
    }
    if (!filled) {
      if (!app.following) {
        // scrubbed back: keep what is shown; "live" starts again from the newest
        app.stale = true;
        render_timeline();
        return;
      }
      const window = await api.history(app.selected, fresh[0].seq, 1);
      if (generation !== app.generation) return;
      const before = (window.records ?? []).at(-1);
      if (!before || before.seq !== fresh[0].seq - 1) {
        app.stale = true;
        return;
      }
      const statuses = window.statuses_before.slice();
      if (before.type === 'status' && before.node < statuses.length) statuses[before.node] = before.to;
      if (statuses.length !== h.statuses.length) {
        await select_agent(app.selected);
        return;
      }
      // the blackboard after `before`: the window's, or (a reload or loss before it) the one shown
      const keys = Array.isArray(window.keys_before) ? keys_after(window.keys_before, [before]) : h.keys;
      app.history = new History(statuses, before.seq, undefined, keys);
      app.skipped += missing;
    }
  }
  if (app.history.append(fresh)) {
    app.stale = true;
    return;
  }
  if (reload) await on_reload(app.selected, reload.shape ?? null);
  schedule_render();
}

async function on_reload(id, shape_hex) {
  const agent = app.by_id.get(id);
  const name = agent?.label ?? `agent ${id}`;
  if (id !== app.selected) {
    banner(`${name} reloaded`, 'reload');
    return;
  }
  banner(`${name}: brain reloaded${shape_hex ? ` (shape ${shape_hex})` : ''}; tree redrawn`, 'reload');
  $('tree').dataset.reloads = String(Number($('tree').dataset.reloads ?? 0) + 1);
  if (!shape_hex || shape_hex !== app.state?.shape) await select_agent(id);
}

let render_pending = false;
function schedule_render() {
  if (render_pending) return;
  render_pending = true;
  requestAnimationFrame(() => {
    render_pending = false;
    render_state();
  });
}

/** Draws the history's state at its cursor and the timeline. */
function render_state() {
  const h = app.history;
  if (!h) return;
  const d = h.derived();
  const at_end = h.at_end;
  const s = app.state ?? {};
  const n = h.statuses.length;
  const last = new Array(n);
  const since = new Array(n);
  for (let i = 0; i < n; i++) {
    last[i] = d.last[i] ?? (at_end ? s.last?.[i] ?? null : null);
    since[i] = d.since[i] ?? (at_end ? s.since?.[i] ?? null : null);
  }
  const now = at_end && app.live ? app.server_time ?? d.time : d.time ?? s.time ?? null;
  tree.set_state({ statuses: h.statuses, last, since, dbstrings: at_end ? s.dbstrings ?? [] : [], now });
  const sleep = at_end ? s.sleep : d.sleep;
  $('agent-sleep').textContent = sleep == null ? '' : `sleeps ${format_seconds(sleep)}`;
  render_board(h);
  render_timeline(d);
}

/** A blackboard value as the table shows it (the key's type says what a number is). */
function value_text(value, type) {
  if (value === null || value === undefined) return 'nil';
  if (type === 'string') return JSON.stringify(value);
  if (type === 'entity') return `entity ${value}`;
  if (type === 'value') return `value ${value}`;
  return String(value);
}

/**
 * The table of the agent's keys beside the tree (hidden for a tree without keys): each key, its
 * type and its value at the timeline's position; a key the record at the cursor wrote is marked.
 */
function render_board(h) {
  const keys = app.shape?.keys ?? [];
  const board = $('board');
  board.hidden = keys.length === 0;
  if (keys.length === 0) return;
  const current = h.cursor > 0 ? h.records[h.cursor - 1] : null;
  const frag = document.createDocumentFragment();
  keys.forEach((k, i) => {
    const tr = document.createElement('tr');
    tr.dataset.key = k.name;
    if (current?.type === 'key' && current.key === i) tr.dataset.changed = '';
    for (const text of [k.name, k.host ? `${k.type} (host)` : k.type, value_text(h.keys[i], k.type)]) {
      const td = document.createElement('td');
      td.textContent = text;
      tr.appendChild(td);
    }
    frag.appendChild(tr);
  });
  $('board-rows').replaceChildren(frag);
}

function record_text(r) {
  const node = app.shape?.nodes[r.node]?.name ?? `#${r.node}`;
  switch (r.type) {
    case 'status': return `${node}: ${STATUS_NAMES[r.from] ?? r.from} → ${STATUS_NAMES[r.to] ?? r.to}`;
    case 'think': return `think${r.cause ? ` (${r.cause})` : ''}${r.sleep != null ? `, sleeps ${format_seconds(r.sleep)}` : ''}`;
    case 'event': return `event ${r.text ?? ''}`;
    case 'error': return `error: ${r.text ?? ''}`;
    case 'reload': return `reload${r.shape ? ` → ${r.shape}` : ''}`;
    case 'key': {
      const k = app.shape?.keys?.[r.key];
      return `${k?.name ?? `key #${r.key}`}: ${value_text(r.before, k?.type)} → ${value_text(r.after, k?.type)}${r.woke ? ' (woke)' : ''}`;
    }
    default: return `${r.type} ${r.text ?? ''}`;
  }
}

function render_timeline(d = app.history.derived()) {
  const h = app.history;
  const tl = $('timeline');
  const slider = $('tl-slider');
  slider.max = String(h.records.length);
  slider.value = String(h.cursor);
  tl.dataset.seq = String(h.seq);
  tl.dataset.cursor = String(h.cursor);
  tl.dataset.records = String(h.records.length);
  tl.dataset.following = app.following ? 'true' : 'false';
  tl.dataset.firstSeq = String(h.first_seq);
  tl.dataset.lastSeq = String(h.last_seq);
  const time = d.time ?? app.state?.time;
  let where = `record ${h.seq}`;
  if (time != null) where += ` · t = ${time.toFixed(2)} s`;
  if (!app.live && app.info) where += ` (log ${app.info.first_time?.toFixed?.(2) ?? '?'}–${app.info.last_time?.toFixed?.(2) ?? '?'} s)`;
  else if (app.following) where += ' · live';
  else where += ` · ${h.records.length - h.cursor} newer${app.stale ? ' (and more on the server: live reloads)' : ''}`;
  if (app.skipped > 0) where += ` · ${app.skipped} records not received (the server dropped them for this page)`;
  $('tl-position').textContent = where;
  $('tl-range').textContent = (h.records.length > 0 ? `${h.records.length} records loaded (${h.first_seq}–${h.last_seq})`
    : 'no record loaded yet') + (h.more_before ? ', older on the server' : '');
  $('tl-live').classList.toggle('active', app.following);
  // the records around the cursor
  const list = $('tl-records');
  const frag = document.createDocumentFragment();
  const from = Math.max(0, h.cursor - 8);
  const to = Math.min(h.records.length, h.cursor + 4);
  for (let c = from; c < to; c++) {
    const r = h.records[c];
    const li = document.createElement('li');
    li.dataset.seq = r.seq;
    li.dataset.type = r.type;
    if (c === h.cursor - 1) li.className = 'current';
    else if (c >= h.cursor) li.className = 'future';
    li.textContent = `${r.seq}  ${typeof r.time === 'number' ? r.time.toFixed(2) : ''}  ${record_text(r)}`;
    frag.appendChild(li);
  }
  list.replaceChildren(frag);
}

// ---- scrubbing

/**
 * Fetches the window before the oldest record kept. Returns the number of records added. Only
 * moves of the timeline call it (queue_move), one after the other.
 */
async function load_older() {
  const h = app.history;
  if (!h || !h.more_before) return 0;
  const generation = app.generation;
  const window = await api.history(app.selected, h.first_seq, WINDOW);
  if (generation !== app.generation) return 0;
  return h.prepend(window);
}

let timeline_queue = Promise.resolve();
let timeline_queued = 0;
/**
 * Runs a move of the timeline (a step, |◀, "older") after those before it: a key held down queues
 * steps, and a fetch of older records holds up the moves after it. #timeline has data-busy from
 * the moment one is asked until the last is done, so that what it shows can be read once settled.
 */
function queue_move(move) {
  timeline_queued++;
  $('timeline').dataset.busy = '';
  timeline_queue = timeline_queue.then(move).catch(show_error).finally(() => {
    if (--timeline_queued === 0) delete $('timeline').dataset.busy;
  });
  return timeline_queue;
}

function step(direction, count = 1) {
  if (direction < 0) app.following = false; // at once: records that come meanwhile must not move it
  return queue_move(() => step_now(direction, count));
}

async function step_now(direction, count) {
  const h = app.history;
  if (!h) return;
  if (direction < 0) app.following = false; // also when a move before it went live again
  for (let k = 0; k < count; k++) {
    if (direction < 0) {
      if (!h.step_back()) {
        if ((await load_older()) === 0 || !h.step_back()) break;
      }
    } else if (!h.step_forward()) {
      break;
    }
  }
  render_state();
}

function to_start() {
  if (!app.history) return Promise.resolve();
  app.following = false;
  return queue_move(() => {
    app.history?.seek_index(0);
    render_state();
  });
}

function show_older() {
  return queue_move(() => load_older().then(render_state));
}

function to_live() {
  const h = app.history;
  if (!h) return;
  if (app.stale) {
    select_agent(app.selected);
    return;
  }
  h.to_end();
  app.following = app.live;
  render_state();
}

// ---- heat overlay

async function load_heat() {
  if (app.selected === null) return;
  const generation = app.generation;
  const body = await api.agent_stats(app.selected);
  if (generation !== app.generation || !app.heat) return;
  const rows = Array.isArray(body) ? body : body.nodes ?? body.rows ?? body.stats ?? [];
  tree.set_heat(rows);
}

async function toggle_heat() {
  app.heat = !app.heat;
  $('heat-toggle').classList.toggle('active', app.heat);
  $('heat-toggle').setAttribute('aria-pressed', String(app.heat));
  if (app.heat) await load_heat().catch(show_error);
  else tree.set_heat(null);
}

// ---- the stream

function on_message(msg) {
  switch (msg.type) {
    case 'frame':
      if (typeof msg.time === 'number') {
        app.server_time = msg.time;
        app.activity.add_frame(msg.time, msg.counts);
        render_list_soon();
        if (app.history && app.following) schedule_render();
      }
      break;
    case 'records':
      if (msg.agent === app.selected) on_records(msg.records ?? []);
      break;
    case 'reload':
      on_reload(msg.agent, msg.shape ?? null).catch(show_error);
      break;
    case 'agents':
      refresh_agents().catch(show_error);
      break;
    case 'dropped':
      if (msg.agent === null || msg.agent === app.selected) {
        $('connection').dataset.dropped = String(Number($('connection').dataset.dropped ?? 0) + (msg.records ?? 0));
      }
      break;
    case 'error':
      console.warn('viewer stream:', msg.error);
      break;
    default:
      break;
  }
}

// ---- keys and controls

function install_controls() {
  for (const id of ['agent-search', 'filter-label']) $(id).addEventListener('input', on_filters_changed);
  $('filter-brain').addEventListener('change', on_filters_changed);
  $('agent-list').addEventListener('pointerenter', () => { app.list_hovered = true; });
  $('agent-list').addEventListener('pointerleave', () => {
    app.list_hovered = false;
    render_list_soon();
  });
  $('agent-list').addEventListener('click', (ev) => {
    const li = ev.target.closest('[data-agent-id]');
    if (li) select_agent(Number(li.dataset.agentId));
  });
  $('tl-back').addEventListener('click', () => step(-1));
  $('tl-forward').addEventListener('click', () => step(1));
  $('tl-start').addEventListener('click', () => to_start());
  $('tl-older').addEventListener('click', () => show_older());
  $('tl-live').addEventListener('click', to_live);
  $('tl-slider').addEventListener('input', (ev) => {
    const h = app.history;
    if (!h) return;
    app.following = false;
    h.seek_index(Number(ev.target.value));
    app.following = app.live && h.at_end;
    render_state();
  });
  $('heat-toggle').addEventListener('click', () => toggle_heat());
  $('fit').addEventListener('click', () => tree.fit());
  $('expand-all').addEventListener('click', () => {
    tree.collapsed.clear();
    tree.relayout();
  });
  document.addEventListener('keydown', (ev) => {
    if (ev.target instanceof HTMLInputElement || ev.target instanceof HTMLSelectElement) {
      if (ev.key === 'Escape') ev.target.blur();
      return;
    }
    const n = ev.shiftKey ? 10 : 1;
    switch (ev.key) {
      case 'ArrowLeft': step(-1, n); break;
      case 'ArrowRight': step(1, n); break;
      case 'Home': to_start(); break;
      case 'End': case 'l': if (app.live) to_live(); else app.history && (app.history.to_end(), render_state()); break;
      case 'h': toggle_heat(); break;
      case 'f': tree.fit(); break;
      case '/': $('agent-search').focus(); ev.preventDefault(); break;
      case 'ArrowUp': case 'ArrowDown': move_selection(ev.key === 'ArrowUp' ? -1 : 1); break;
      default: return;
    }
    ev.preventDefault();
  });
}

function move_selection(delta) {
  const items = [...$('agent-list').querySelectorAll('[data-agent-id]')];
  if (items.length === 0) return;
  const at = items.findIndex((li) => Number(li.dataset.agentId) === app.selected);
  const next = items[Math.max(0, Math.min(items.length - 1, at < 0 ? 0 : at + delta))];
  select_agent(Number(next.dataset.agentId));
}

// ---- start

async function start() {
  tree = new TreeView($('tree-pane'), $('tree'), {
    on_toggle: (i) => tree.toggle(i),
    on_select_node: (i) => {
      const node = app.shape?.nodes[i];
      const param = node ? param_text(node.param, tree.kinds.get(node.kind)) : '';
      if (node) $('node-info').textContent = `${node.name} · ${node.kind}${param ? ` · ${param}` : ''}`;
    },
  });
  map = new MapView($('map'), (id) => select_agent(id));
  install_controls();
  window.btViewer = { app, tree, select_agent, step, to_live, get stream() { return stream; } };
  try {
    app.info = await api.info();
  } catch (err) {
    show_error(err);
    document.body.dataset.error = err.message;
    if (!/: 403/.test(err.message)) $('connection').textContent = 'no server';
    return;
  }
  if (app.info.token && !token) {
    banner('this server needs a token: open the URL it printed (with ?token=)', 'error');
  }
  // the kind table, for the parameters' texts (without it they read "param 0.25")
  tree.kinds = kind_table(await api.kinds().catch(() => null));
  app.live = app.info.mode !== 'log';
  document.body.dataset.mode = app.live ? 'live' : 'log';
  $('mode').textContent = app.live ? 'live' : `log ${app.info.source ?? ''}`;
  $('tl-live').hidden = !app.live;
  if (app.live) {
    stream = new Stream(on_message, (status) => {
      $('connection').textContent = status === 'open' ? 'connected' : 'reconnecting…';
      $('connection').dataset.state = status;
    });
    // the list's figures move with the stream's counts; the whole list (positions, running
    // paths) is asked for every second, every three with many agents
    const poll = () => {
      refresh_agents().catch(show_error).finally(() => setTimeout(poll, app.agents.length > 1000 ? 3000 : 1000));
    };
    setTimeout(poll, 1000);
    setInterval(() => refresh_selected_state().catch(() => {}), 1000);
    setInterval(() => { if (app.heat) load_heat().catch(() => {}); }, 2000);
  } else {
    $('connection').textContent = 'replay';
  }
  await refresh_agents().catch(show_error);
  const wanted = Number(new URLSearchParams(location.hash.slice(1)).get('agent'));
  if (wanted && app.by_id.has(wanted)) await select_agent(wanted);
  document.body.dataset.ready = '';
}

/** The live details the records do not carry (dbstrings, sleep, last results, since). */
async function refresh_selected_state() {
  if (app.selected === null || app.loading || !app.following) return;
  const generation = app.generation;
  const state = await api.agent(app.selected);
  if (generation !== app.generation) return;
  if (state.shape !== app.state?.shape) {
    await on_reload(app.selected, state.shape);
    return;
  }
  app.state = state;
  schedule_render();
}

start();
