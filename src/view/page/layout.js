// SPDX-License-Identifier: MIT
// A tidy top-down layout of a tree's shape (nodes in pre-order, as GET /api/shapes/<hex> gives
// them): each subtree is laid out alone, then siblings' subtrees are pushed right until their
// contours, level by level, are `gap` apart, and a parent is centred over its first and last
// child. Collapsed nodes hide their subtrees. No DOM: the sizes come from the caller.

/** The level spacing and gaps of a layout, in pixels. */
export const LAYOUT_DEFAULTS = { node_height: 58, level_gap: 36, gap: 14, margin: 20 };

/**
 * Lays out `nodes` ([{children: [indices]}], pre-order, root 0).
 *   width(i): the width of node i's box; collapsed: a Set of node indices whose children are hidden.
 * Returns {x, y (the centre top of each visible node's box; NaN when hidden), visible (indices
 * in pre-order), width, height (of the whole drawing)}.
 */
export function tree_layout(nodes, width, collapsed = new Set(), options = {}) {
  const { node_height, level_gap, gap, margin } = { ...LAYOUT_DEFAULTS, ...options };
  const n = nodes.length;
  const x = new Float64Array(n).fill(NaN);
  const y = new Float64Array(n).fill(NaN);
  if (n === 0) return { x, y, visible: [], width: 0, height: 0 };

  const shown_children = (i) => (collapsed.has(i) ? [] : nodes[i].children ?? []);

  // visible nodes in pre-order and their depths, without recursion (a tree may be deep)
  const visible = [];
  const depth = new Int32Array(n);
  const stack = [0];
  while (stack.length > 0) {
    const i = stack.pop();
    visible.push(i);
    const kids = shown_children(i);
    for (let k = kids.length - 1; k >= 0; k--) {
      depth[kids[k]] = depth[i] + 1;
      stack.push(kids[k]);
    }
  }

  // post-order: each node's contour, its left and right edge on each level of its subtree, and
  // its children's offsets from it. A contour is {L, R, s}: the edges are L[k] + s and R[k] + s,
  // deepest level first, the node's own level last, so that a parent takes over its deepest
  // child's arrays (shifting by s) instead of copying them: linear time, even for a chain
  const offset = new Float64Array(n); // x of a node relative to its parent
  const contour = new Array(n);
  for (let v = visible.length - 1; v >= 0; v--) {
    const i = visible[v];
    const half = width(i) / 2;
    const kids = shown_children(i);
    if (kids.length === 0) {
      contour[i] = { L: [-half], R: [half], s: 0 };
      continue;
    }
    // place the children's subtrees left to right, each as close as the contours allow
    let acc = contour[kids[0]];
    contour[kids[0]] = null;
    const place = [0];
    for (let k = 1; k < kids.length; k++) {
      const c = contour[kids[k]];
      contour[kids[k]] = null;
      const la = acc.L.length;
      const lc = c.L.length;
      const common = Math.min(la, lc);
      let shift = -Infinity;
      for (let d = 0; d < common; d++) {
        shift = Math.max(shift, acc.R[la - 1 - d] + acc.s - (c.L[lc - 1 - d] + c.s) + gap);
      }
      place.push(shift);
      if (lc <= la) {
        // the right edge of the levels c has is c's
        for (let d = 0; d < lc; d++) acc.R[la - 1 - d] = c.R[lc - 1 - d] + c.s + shift - acc.s;
      } else {
        // c is deeper: its arrays carry on, with the left edges of acc's levels
        c.s += shift;
        for (let d = 0; d < la; d++) c.L[lc - 1 - d] = acc.L[la - 1 - d] + acc.s - c.s;
        acc = c;
      }
    }
    const mid = (place[0] + place[place.length - 1]) / 2;
    for (let k = 0; k < kids.length; k++) offset[kids[k]] = place[k] - mid;
    acc.s -= mid;
    acc.L.push(-half - acc.s);
    acc.R.push(half - acc.s);
    contour[i] = acc;
  }

  // pre-order: absolute positions, then shifted so the leftmost edge is at the margin
  const level = node_height + level_gap;
  x[0] = 0;
  let max_depth = 0;
  for (const i of visible) {
    if (i !== 0) x[i] = x[nodes[i].parent] + offset[i];
    y[i] = margin + depth[i] * level;
    max_depth = Math.max(max_depth, depth[i]);
  }
  let min_left = Infinity;
  let max_right = -Infinity;
  const root = contour[0];
  for (let k = 0; k < root.L.length; k++) {
    min_left = Math.min(min_left, root.L[k] + root.s);
    max_right = Math.max(max_right, root.R[k] + root.s);
  }
  const dx = margin - min_left;
  for (const i of visible) x[i] += dx;
  return {
    x,
    y,
    visible,
    width: max_right - min_left + 2 * margin,
    height: (max_depth + 1) * level - level_gap + 2 * margin,
  };
}

/** The nodes of the subtree under `i` (i included), pre-order. */
export function subtree_nodes(nodes, i) {
  const out = [];
  const stack = [i];
  while (stack.length > 0) {
    const j = stack.pop();
    out.push(j);
    const kids = nodes[j].children ?? [];
    for (let k = kids.length - 1; k >= 0; k--) stack.push(kids[k]);
  }
  return out;
}
