// SPDX-License-Identifier: MIT
// The map: one dot per agent that has a position (x, y in /api/agents), coloured by brain; a
// click on a dot selects its agent. Dots are kept and moved, not redrawn.

const SVG = 'http://www.w3.org/2000/svg';
const PALETTE = ['#4e79a7', '#e15759', '#59a14f', '#f28e2b', '#b07aa1', '#76b7b2', '#edc948', '#9c755f'];

export class MapView {
  constructor(svg, on_select) {
    this.svg = svg;
    this.on_select = on_select;
    this.dots = new Map(); // id → circle
    this.colours = new Map(); // brain → colour
    this.selected = null;
    svg.addEventListener('click', (ev) => {
      const dot = ev.target.closest('[data-map-agent-id]');
      if (dot) this.on_select(Number(dot.getAttribute('data-map-agent-id')));
    });
  }

  colour(brain) {
    if (!this.colours.has(brain)) this.colours.set(brain, PALETTE[this.colours.size % PALETTE.length]);
    return this.colours.get(brain);
  }

  /** Draws the agents that have x and y; hides the map when none has. */
  update(agents, visible_ids = null) {
    const placed = agents.filter((a) => typeof a.x === 'number' && typeof a.y === 'number');
    this.svg.closest('section')?.toggleAttribute('hidden', placed.length === 0);
    if (placed.length === 0) return;
    let minx = Infinity, miny = Infinity, maxx = -Infinity, maxy = -Infinity;
    for (const a of placed) {
      minx = Math.min(minx, a.x); maxx = Math.max(maxx, a.x);
      miny = Math.min(miny, a.y); maxy = Math.max(maxy, a.y);
    }
    const span = Math.max(maxx - minx, maxy - miny, 1);
    const pad = span * 0.04;
    this.svg.setAttribute('viewBox', `${minx - pad} ${miny - pad} ${span + 2 * pad} ${span + 2 * pad}`);
    // dots shrink as they get many (down to a third), so that a crowd still shows its shape
    const r = ((span + 2 * pad) / 120) * Math.max(0.33, Math.min(1, Math.sqrt(50 / placed.length)));
    const seen = new Set();
    for (const a of placed) {
      seen.add(a.id);
      let dot = this.dots.get(a.id);
      if (!dot) {
        dot = document.createElementNS(SVG, 'circle');
        dot.setAttribute('data-map-agent-id', a.id);
        dot.setAttribute('fill', this.colour(a.brain));
        const title = document.createElementNS(SVG, 'title');
        title.textContent = a.label;
        dot.appendChild(title);
        this.svg.appendChild(dot);
        this.dots.set(a.id, dot);
      }
      dot.setAttribute('cx', a.x);
      dot.setAttribute('cy', a.y);
      dot.setAttribute('r', a.id === this.selected ? r * 2 : r);
      dot.classList.toggle('selected', a.id === this.selected);
      dot.classList.toggle('dim', visible_ids !== null && !visible_ids.has(a.id));
    }
    for (const [id, dot] of this.dots) {
      if (!seen.has(id)) {
        dot.remove();
        this.dots.delete(id);
      }
    }
    const sel = this.dots.get(this.selected);
    if (sel) this.svg.appendChild(sel); // on top
  }

  select(id) {
    this.selected = id;
  }
}
