// SPDX-License-Identifier: MIT
// The selected agent's tree in SVG: one <g> per visible node (box, name, kind, a line of details,
// a collapse toggle), one <path> per edge; statuses, last results, the running path and the heat
// overlay are changed in place on those elements, so a state change touches only what changed.
// The <svg> is as big as the drawing, inside a pane that clips it; pan (drag) and zoom (wheel)
// set one CSS transform on the <svg>, which the browser's compositor moves without laying out or
// painting the tree again (a transform inside the SVG would lay out every text at each frame).
import { tree_layout } from './layout.js';
import { STATUS, STATUS_NAMES } from './history.js';

const SVG = 'http://www.w3.org/2000/svg';
const NODE_H = 58;

/** The box width for a node: its name or kind, whichever is longer, within limits. */
function node_width(node) {
  const chars = Math.max(node.name.length, short_kind(node.kind).length + 4);
  return Math.max(96, Math.min(240, chars * 7.2 + 24));
}

/** A kind's class name (bt_kind_name) without its Node suffix, as the box shows it. */
export function short_kind(kind) {
  return (kind ?? '').replace(/Node$/, '') || '?';
}

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

/** A node's parameter as a short text: 0.30000000000000004 → 0.3; null → ''. */
export function format_param(param) {
  if (param === null || param === undefined) return '';
  return typeof param === 'number' ? String(Number(param.toPrecision(6))) : String(param);
}

/** The kind table of GET /api/kinds as a Map from class name to its entry; null gives an empty one. */
export function kind_table(body) {
  return new Map((body?.kinds ?? []).map((k) => [k.name, k]));
}

/**
 * A node's parameter as its kind shows it (the kind table's printf format: "period %.14g" →
 * "period 0.25"), "param 0.25" for a kind the table does not know or without a format; '' for none.
 */
export function param_text(param, kind) {
  if (param === null || param === undefined) return '';
  const format = kind?.param;
  const number = /%[-+ #0]*\d*(?:\.\d+)?g/;
  if (typeof format !== 'string' || !number.test(format)) return `param ${format_param(param)}`;
  return format.replace(number, format_param(param));
}

/** Seconds as a short text: 0.25 s, 12 s, 3 min 5 s. */
export function format_seconds(s) {
  if (!(s >= 0)) return '';
  if (s < 10) return `${s.toFixed(2)} s`;
  if (s < 120) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

/**
 * A node's coverage in the figures the heat overlay shows (docs/viewer.md "The heat overlay"):
 * covered when it was visited or set running (visits or runs above 0); a node with no row was
 * never visited in them. A node placed under several parents (shared) has its figures at its
 * first place only, so its places are not judged: covered null. Gives {covered, line}, line the
 * text its title adds ('' for none).
 */
export function coverage_of(row, shared) {
  if (shared) return { covered: null, line: '' };
  const covered = row != null && ((row.visits ?? 0) > 0 || (row.runs ?? 0) > 0);
  return { covered, line: covered ? '' : 'not covered: never visited in these figures' };
}

export class TreeView {
  /**
   * pane: the element that clips the view and takes the pointer; svg: the <svg id="tree"> inside
   * it; on_toggle(i) is called when a node's toggle is clicked, on_select_node(i) on a click.
   */
  constructor(pane, svg, { on_toggle = () => {}, on_select_node = () => {} } = {}) {
    this.pane = pane;
    this.svg = svg;
    this.stage = svg.parentElement; // the element the transform moves
    this.on_toggle = on_toggle;
    this.on_select_node = on_select_node;
    this.viewport = el('g', { id: 'tree-viewport' }, svg);
    this.edges_layer = el('g', { class: 'edges' }, this.viewport);
    this.nodes_layer = el('g', { class: 'nodes' }, this.viewport);
    this.transform = { x: 0, y: 0, k: 1 };
    this.nodes = [];
    this.node_elems = []; // per node index: {g, box, heat, detail, toggle} or null when hidden
    this.edge_elems = []; // per child node index: path or null
    this.collapsed = new Set();
    this.kinds = kind_table(null); // the kind table (GET /api/kinds), for the parameters' texts
    this.layout = null;
    this.frame_times = []; // ms of the last pan/zoom transform updates (work done in the handler)
    this.install_pan_zoom();
  }

  /** A new shape: draws it from scratch (collapsed nodes kept when the shape is the same). */
  set_shape(shape) {
    if (!this.shape || this.shape.shape !== shape.shape) this.collapsed = new Set();
    this.shape = shape;
    this.nodes = shape.nodes;
    this.widths = this.nodes.map(node_width);
    this.relayout();
  }

  relayout() {
    const t0 = performance.now();
    this.layout = tree_layout(this.nodes, (i) => this.widths[i], this.collapsed);
    this.edges_layer.replaceChildren();
    this.nodes_layer.replaceChildren();
    this.node_elems = new Array(this.nodes.length).fill(null);
    this.edge_elems = new Array(this.nodes.length).fill(null);
    const { x, y, visible } = this.layout;
    const edges = document.createDocumentFragment();
    const boxes = document.createDocumentFragment();
    for (const i of visible) {
      const node = this.nodes[i];
      const w = this.widths[i];
      if (node.parent >= 0) {
        const px = x[node.parent];
        const py = y[node.parent] + NODE_H;
        const my = (py + y[i]) / 2;
        this.edge_elems[i] = el('path', {
          class: 'edge',
          d: `M${px},${py}C${px},${my} ${x[i]},${my} ${x[i]},${y[i]}`,
          'data-from': node.parent,
          'data-to': i,
        }, edges);
      }
      // absolute coordinates, no transform per node: each transform would make a paint chunk of
      // its own, which the browser goes through at every frame of pan or zoom
      const left = x[i] - w / 2;
      const top = y[i];
      const g = el('g', {
        class: 'node',
        'data-node-index': i,
        'data-name': node.name,
        'data-kind': node.kind,
        'data-status': 'READY',
      }, boxes);
      const heat = el('rect', { class: 'heat', x: left - 8, y: top - 8, width: w + 16, height: NODE_H + 16, rx: 12 }, g);
      const box = el('rect', { class: 'box', x: left, y: top, width: w, height: NODE_H, rx: 6 }, g);
      const title = el('title', {}, g);
      const param = param_text(node.param, this.kinds.get(node.kind));
      const title_text = `${node.name} (${node.kind})${param ? ` ${param}` : ''}`;
      title.textContent = title_text;
      const name = el('text', { class: 'name', x: left + 8, y: top + 17 }, g);
      name.textContent = node.name;
      const kind = el('text', { class: 'kind', x: left + 8, y: top + 32 }, g);
      kind.textContent = short_kind(node.kind) + (node.param != null ? ` ${format_param(node.param)}` : '')
        + (node.shared ? ` · shared ×${node.shared}` : '');
      const detail = el('text', { class: 'detail', x: left + 8, y: top + 48 }, g);
      const heat_label = el('text', { class: 'heat-label', x: left + w - 6, y: top + 32 }, g);
      let toggle = null;
      const nkids = (node.children ?? []).length;
      if (nkids > 0) {
        toggle = el('g', { class: 'toggle', 'data-toggle': i }, g);
        el('circle', { cx: left + w - 12, cy: top + 12, r: 8 }, toggle);
        const sign = el('text', { x: left + w - 12, y: top + 16 }, toggle);
        sign.textContent = this.collapsed.has(i) ? `+${nkids}` : '−';
        if (this.collapsed.has(i)) g.classList.add('collapsed');
      }
      this.node_elems[i] = { g, box, heat, heat_label, detail, toggle, title, title_text };
    }
    this.edges_layer.appendChild(edges);
    this.nodes_layer.appendChild(boxes);
    this.layout_ms = performance.now() - t0;
    if (this.state) this.set_state(this.state);
    if (this.heat) this.set_heat(this.heat);
  }

  /** Collapses or expands node i's subtree. */
  toggle(i) {
    if (this.collapsed.has(i)) this.collapsed.delete(i);
    else this.collapsed.add(i);
    this.relayout();
  }

  /**
   * Draws a state: {statuses, last, since, dbstrings, now} (arrays by node index; null entries
   * unknown). Running nodes whose parent runs make the running path (bold edges).
   */
  set_state(state) {
    this.state = state;
    const { statuses, last = [], since = [], dbstrings = [], now = null } = state;
    for (let i = 0; i < this.nodes.length; i++) {
      const e = this.node_elems[i];
      const status = statuses[i] ?? STATUS.READY;
      if (this.edge_elems[i]) {
        const parent = this.nodes[i].parent;
        const on_path = status === STATUS.RUNNING && statuses[parent] === STATUS.RUNNING;
        if (on_path) this.edge_elems[i].setAttribute('data-running', '');
        else this.edge_elems[i].removeAttribute('data-running');
      }
      if (!e) continue;
      const name = STATUS_NAMES[status] ?? 'READY';
      if (e.g.getAttribute('data-status') !== name) e.g.setAttribute('data-status', name);
      const result = last[i] === STATUS.SUCCESS ? 'SUCCESS' : last[i] === STATUS.FAILED ? 'FAILED' : '';
      if (e.g.getAttribute('data-last') !== result) {
        if (result) e.g.setAttribute('data-last', result);
        else e.g.removeAttribute('data-last');
      }
      const parts = [];
      if (status === STATUS.RUNNING && since[i] != null && now != null) parts.push(`running ${format_seconds(now - since[i])}`);
      if (dbstrings[i]) parts.push(dbstrings[i]);
      let text = parts.join(' · ');
      const fits = Math.floor((this.widths[i] - 14) / 6);
      if (text.length > fits) text = `${text.slice(0, Math.max(1, fits - 1))}…`;
      if (e.detail.textContent !== text) e.detail.textContent = text;
    }
  }

  /** The heat overlay: stats rows ({node, visits, time, ...}) or null to hide it. */
  set_heat(rows) {
    this.heat = rows;
    this.svg.classList.toggle('heat-on', rows != null);
    if (!rows) {
      for (const e of this.node_elems) {
        if (!e) continue;
        e.title.textContent = e.title_text;
        e.g.classList.remove('uncovered');
        e.g.removeAttribute('data-covered');
      }
      return;
    }
    let max = 0;
    for (const r of rows) max = Math.max(max, r.visits ?? 0);
    const by_node = new Map(rows.map((r) => [r.node, r]));
    for (let i = 0; i < this.nodes.length; i++) {
      const e = this.node_elems[i];
      if (!e) continue;
      const r = by_node.get(i);
      const v = r ? r.visits ?? 0 : 0;
      const level = max > 0 ? v / max : 0;
      e.heat.setAttribute('fill-opacity', (0.15 + 0.85 * level).toFixed(3));
      e.heat_label.textContent = `×${v}`;
      e.heat.setAttribute('fill', `hsl(${Math.round(50 - 50 * level)}, 100%, 50%)`);
      e.g.setAttribute('data-heat', v);
      // not covered (never visited in these figures) is marked apart from cold (visited little)
      const coverage = coverage_of(r, this.nodes[i].shared);
      e.g.classList.toggle('uncovered', coverage.covered === false);
      if (coverage.covered === null) e.g.removeAttribute('data-covered');
      else e.g.setAttribute('data-covered', String(coverage.covered));
      let title = r
        ? `${this.nodes[i].name} (${this.nodes[i].kind})\nvisits ${r.visits}, successes ${r.successes}, `
          + `failures ${r.failures}, aborts ${r.aborts}, runs ${r.runs}, time ${format_seconds(r.time)}, `
          + `longest ${format_seconds(r.longest)}, errors ${r.errors}`
        : e.title_text;
      if (coverage.line) title += `\n${coverage.line}`;
      e.title.textContent = title;
    }
  }

  apply_transform() {
    const t0 = performance.now();
    const { x, y, k } = this.transform;
    this.stage.style.transform = `translate(${x}px,${y}px) scale(${k})`;
    // while it moves, the compositor scales the tree's picture; once still, it is drawn afresh
    // at the new scale (sharp text)
    if (!this.moving) {
      this.moving = true;
      this.stage.style.willChange = 'transform';
    }
    clearTimeout(this.still_timer);
    this.still_timer = setTimeout(() => {
      this.moving = false;
      this.stage.style.willChange = 'auto';
    }, 250);
    // level of detail: text too small to read is not drawn (most of a frame's cost on a big tree)
    const detail = k < 0.4 ? 'far' : k < 0.65 ? 'mid' : 'near';
    if (detail !== this.detail) {
      this.detail = detail;
      this.svg.setAttribute('data-detail', detail);
    }
    this.frame_times.push(performance.now() - t0);
    if (this.frame_times.length > 600) this.frame_times.shift();
  }

  /** Pans by (dx, dy) screen pixels. */
  pan(dx, dy) {
    this.transform.x += dx;
    this.transform.y += dy;
    this.apply_transform();
  }

  /** Zooms by `factor` around the screen point (cx, cy) of the svg. */
  zoom(factor, cx, cy) {
    const t = this.transform;
    const k = Math.max(0.01, Math.min(4, t.k * factor));
    const f = k / t.k;
    t.x = cx - (cx - t.x) * f;
    t.y = cy - (cy - t.y) * f;
    t.k = k;
    this.apply_transform();
  }

  /**
   * Fits the whole drawing in view (never enlarged past 1). A tree too wide to be seen whole at a
   * scale of 0.1 is shown at 0.1, centred on its deepest running node (the root when none runs):
   * smaller, its boxes would be dots.
   */
  fit() {
    if (!this.layout) return;
    const r = this.pane.getBoundingClientRect();
    const k = Math.min(1, r.width / this.layout.width, r.height / this.layout.height);
    if (k < 0.1) {
      this.show_node(this.focus_node(), 0.1);
      return;
    }
    this.transform = { k, x: (r.width - this.layout.width * k) / 2, y: 0 };
    this.apply_transform();
  }

  /** The deepest running node drawn (the root when none runs). */
  focus_node() {
    const statuses = this.state?.statuses ?? [];
    let focus = 0;
    for (const i of this.layout.visible) {
      if (statuses[i] === STATUS.RUNNING && this.layout.y[i] >= this.layout.y[focus]) focus = i;
    }
    return focus;
  }

  /** Scale k, node i in the middle (and the tree's top in view when it fits). */
  show_node(i, k) {
    const r = this.pane.getBoundingClientRect();
    const t = this.transform;
    t.k = k;
    t.x = r.width / 2 - this.layout.x[i] * k;
    t.y = Math.min(20, r.height / 2 - this.layout.y[i] * k);
    this.apply_transform();
  }

  /**
   * The first view of a tree: all of it when it fits at a readable size (a scale of 0.4 or
   * more), else a readable scale centred on the deepest running node (the root when none runs).
   * Call it after set_state, which tells which nodes run.
   */
  initial_view() {
    if (!this.layout) return;
    const r = this.pane.getBoundingClientRect();
    const k_fit = Math.min(1, r.width / this.layout.width, r.height / this.layout.height);
    if (k_fit >= 0.4) this.fit();
    else this.show_node(this.focus_node(), 0.7);
  }

  /** Scrolls so node i is at the top centre, at the current zoom. */
  centre_on(i) {
    if (!this.layout || Number.isNaN(this.layout.x[i])) return;
    const r = this.pane.getBoundingClientRect();
    const t = this.transform;
    t.x = r.width / 2 - this.layout.x[i] * t.k;
    t.y = 20 - this.layout.y[i] * t.k;
    this.apply_transform();
  }

  install_pan_zoom() {
    let drag = null;
    this.pane.addEventListener('pointerdown', (ev) => {
      const toggle = ev.target.closest('[data-toggle]');
      if (toggle) {
        ev.stopPropagation();
        this.on_toggle(Number(toggle.getAttribute('data-toggle')));
        return;
      }
      drag = { x: ev.clientX, y: ev.clientY, moved: false, target: ev.target };
      this.pane.setPointerCapture(ev.pointerId);
    });
    this.pane.addEventListener('pointermove', (ev) => {
      if (!drag) return;
      const dx = ev.clientX - drag.x;
      const dy = ev.clientY - drag.y;
      if (dx === 0 && dy === 0) return;
      drag.moved = true;
      drag.x = ev.clientX;
      drag.y = ev.clientY;
      this.pan(dx, dy);
    });
    const end = (ev) => {
      if (drag && !drag.moved) {
        const node = drag.target.closest?.('[data-node-index]');
        if (node) this.on_select_node(Number(node.getAttribute('data-node-index')));
      }
      drag = null;
    };
    this.pane.addEventListener('pointerup', end);
    this.pane.addEventListener('pointercancel', () => { drag = null; });
    this.pane.addEventListener('wheel', (ev) => {
      ev.preventDefault();
      const r = this.pane.getBoundingClientRect();
      this.zoom(Math.exp(-ev.deltaY * 0.0015), ev.clientX - r.left, ev.clientY - r.top);
    }, { passive: false });
  }
}
