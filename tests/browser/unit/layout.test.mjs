// SPDX-License-Identifier: MIT
// The tree's layout (src/view/page/layout.js): no two boxes of a level overlap, siblings keep
// their order, a parent is centred over its children, collapsed subtrees are hidden, deep and
// large trees are laid out (the time for 2,000 nodes is printed, not asserted).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LAYOUT_DEFAULTS, subtree_nodes, tree_layout } from '../../../src/view/page/layout.js';

/** A pre-order node array from nested [name, [children...]]. */
function build(spec) {
  const nodes = [];
  const add = ([name, kids = []], parent) => {
    const i = nodes.length;
    nodes.push({ name, parent, children: [] });
    for (const k of kids) nodes[i].children.push(add(k, i));
    return i;
  };
  add(spec, -1);
  return nodes;
}

/** A random tree of n nodes in pre-order (seeded), fan-out up to 6. */
function random_tree(n, seed = 1) {
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const parent = [-1];
  for (let i = 1; i < n; i++) parent.push(Math.floor(rand() ** 2 * i));
  // renumber in pre-order
  const kids = parent.map(() => []);
  for (let i = 1; i < n; i++) kids[parent[i]].push(i);
  const nodes = [];
  const stack = [[0, -1]];
  while (stack.length) {
    const [old, p] = stack.pop();
    const i = nodes.length;
    nodes.push({ name: `n${old}`, parent: p, children: [] });
    if (p >= 0) nodes[p].children.push(i);
    for (let k = kids[old].length - 1; k >= 0; k--) stack.push([kids[old][k], i]);
  }
  // a child is pushed when popped, so order is kept; fix children order to pre-order indices
  for (const node of nodes) node.children.sort((a, b) => a - b);
  return nodes;
}

function check_layout(nodes, widths, layout, collapsed = new Set()) {
  const { x, y, visible } = layout;
  const gap = LAYOUT_DEFAULTS.gap;
  // every shown node is inside the drawing
  for (const i of visible) {
    assert.ok(x[i] - widths[i] / 2 >= LAYOUT_DEFAULTS.margin - 1e-6, `node ${i} left of the margin`);
    assert.ok(x[i] + widths[i] / 2 <= layout.width - LAYOUT_DEFAULTS.margin + 1e-6, `node ${i} past the width`);
  }
  // levels: boxes in pre-order are left to right, at least gap apart
  const levels = new Map();
  for (const i of visible) {
    if (!levels.has(y[i])) levels.set(y[i], []);
    levels.get(y[i]).push(i);
  }
  for (const row of levels.values()) {
    for (let k = 1; k < row.length; k++) {
      const a = row[k - 1];
      const b = row[k];
      assert.ok(x[a] + widths[a] / 2 + gap <= x[b] - widths[b] / 2 + 1e-6,
        `nodes ${a} and ${b} overlap on a level: ${x[a]} ${x[b]}`);
    }
  }
  for (const i of visible) {
    const node = nodes[i];
    if (node.parent >= 0) assert.ok(y[i] > y[node.parent], `node ${i} is not below its parent`);
    const kids = collapsed.has(i) ? [] : node.children;
    if (kids.length > 0) {
      const mid = (x[kids[0]] + x[kids[kids.length - 1]]) / 2;
      assert.ok(Math.abs(x[i] - mid) < 1e-6, `node ${i} is not centred over its children`);
    }
  }
}

test('a small tree: children in order under their parent, centred, no overlap', () => {
  const nodes = build(['Root', [['Chase', [['Go'], ['Hit']]], ['Flee'], ['Wander', [['A'], ['B'], ['C']]]]]);
  const widths = nodes.map((n) => 40 + n.name.length * 7);
  const layout = tree_layout(nodes, (i) => widths[i]);
  assert.equal(layout.visible.length, nodes.length);
  check_layout(nodes, widths, layout);
  const names = (list) => list.map((i) => nodes[i].name);
  const at = (name) => nodes.findIndex((n) => n.name === name);
  assert.ok(layout.x[at('Chase')] < layout.x[at('Flee')] && layout.x[at('Flee')] < layout.x[at('Wander')]);
  assert.deepEqual(names(layout.visible), nodes.map((n) => n.name));
  assert.ok(layout.y[at('Go')] > layout.y[at('Chase')]);
});

test('subtrees are packed: a narrow subtree tucks under a wide neighbour\'s empty levels', () => {
  // Root has a deep narrow left child and a wide shallow right child: tidy means the right one
  // is only as far as its own level needs, not past the deep one's widest level
  const nodes = build(['R', [['L', [['L1', [['L2', [['a'], ['b'], ['c'], ['d']]]]]]], ['W']]]);
  const widths = nodes.map(() => 50);
  const layout = tree_layout(nodes, (i) => widths[i]);
  check_layout(nodes, widths, layout);
  const at = (name) => nodes.findIndex((n) => n.name === name);
  assert.equal(layout.x[at('W')] - layout.x[at('L')], 50 + LAYOUT_DEFAULTS.gap);
});

test('a collapsed node hides its subtree and the rest closes up', () => {
  const nodes = build(['Root', [['Big', [['a'], ['b'], ['c'], ['d'], ['e']]], ['Next']]]);
  const widths = nodes.map(() => 60);
  const open = tree_layout(nodes, (i) => widths[i]);
  const collapsed = new Set([1]);
  const closed = tree_layout(nodes, (i) => widths[i], collapsed);
  check_layout(nodes, widths, closed, collapsed);
  assert.deepEqual(closed.visible, [0, 1, 7]);
  assert.ok(Number.isNaN(closed.x[2]));
  assert.ok(closed.width < open.width);
  assert.deepEqual(subtree_nodes(nodes, 1), [1, 2, 3, 4, 5, 6]);
});

test('random trees, widths of their own, lay out without overlap; 2,000 nodes timed', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    const nodes = random_tree(300, seed);
    const widths = nodes.map((_, i) => 60 + ((i * 37) % 90));
    const collapsed = new Set(nodes.map((_, i) => i).filter((i) => i % 17 === 5));
    check_layout(nodes, widths, tree_layout(nodes, (i) => widths[i]));
    check_layout(nodes, widths, tree_layout(nodes, (i) => widths[i], collapsed), collapsed);
  }
  const big = random_tree(2000, 9);
  const t0 = performance.now();
  const layout = tree_layout(big, () => 120);
  const ms = performance.now() - t0;
  check_layout(big, big.map(() => 120), layout);
  console.log(`# layout of 2,000 nodes: ${ms.toFixed(1)} ms`);
});

test('a chain of 20,000 nodes: no recursion limit', () => {
  const nodes = Array.from({ length: 20000 }, (_, i) => ({ name: `n${i}`, parent: i - 1, children: i < 19999 ? [i + 1] : [] }));
  const layout = tree_layout(nodes, () => 80);
  assert.equal(layout.visible.length, 20000);
  assert.equal(layout.x[19999], layout.x[0]);
});
