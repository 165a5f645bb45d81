// SPDX-License-Identifier: MIT
// The agent list's logic (src/view/page/agents.js): search, brain and label filters, the order
// by activity, activity from the stream's frame counts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ActivityMeter, agents_brains, agents_filter, agents_sort } from '../../../src/view/page/agents.js';

const agents = [
  { id: 3, label: 'wolf 3', brain: 'wolf', running: ['Root', 'Chase', 'Attack'], activity: 2.5 },
  { id: 1, label: 'sheep 1', brain: 'sheep', running: ['Root', 'Graze'], activity: 0.5 },
  { id: 7, label: 'wolf 7', brain: 'wolf', running: [], activity: 2.5 },
  { id: 12, label: 'guard 12', brain: 'guard', running: ['Root', 'Patrol'], activity: 9 },
  { id: 4, label: 'Sheep 4 (lost)', brain: 'sheep', running: ['Root', 'Panic'], activity: 0 },
];
const ids = (list) => list.map((a) => a.id);

test('search matches every word in id, label, brain or running path, any case', () => {
  assert.deepEqual(ids(agents_filter(agents, { search: 'WOLF' })), [3, 7]);
  assert.deepEqual(ids(agents_filter(agents, { search: 'attack' })), [3]);
  assert.deepEqual(ids(agents_filter(agents, { search: 'sheep panic' })), [4]);
  assert.deepEqual(ids(agents_filter(agents, { search: '12' })), [12]);
  assert.deepEqual(ids(agents_filter(agents, { search: '  ' })), [3, 1, 7, 12, 4]);
  assert.deepEqual(ids(agents_filter(agents, { search: 'dragon' })), []);
});

test('brain is matched exactly, label by contained text; filters combine', () => {
  assert.deepEqual(ids(agents_filter(agents, { brain: 'sheep' })), [1, 4]);
  assert.deepEqual(ids(agents_filter(agents, { brain: 'she' })), []);
  assert.deepEqual(ids(agents_filter(agents, { label: 'LOST' })), [4]);
  assert.deepEqual(ids(agents_filter(agents, { brain: 'wolf', label: '7' })), [7]);
  assert.deepEqual(ids(agents_filter(agents, { brain: 'wolf', search: 'chase' })), [3]);
});

test('sorted by activity, most active first, ties by id; the input is not changed', () => {
  const before = ids(agents);
  assert.deepEqual(ids(agents_sort(agents)), [12, 3, 7, 1, 4]);
  assert.deepEqual(ids(agents), before);
});

test('brains are listed once each, sorted', () => {
  assert.deepEqual(agents_brains(agents), ['guard', 'sheep', 'wolf']);
});

test('activity from frame counts: transitions per second over the window', () => {
  const meter = new ActivityMeter(5);
  assert.equal(meter.activity(3), null);
  meter.add_frame(0, {});
  for (let t = 1; t <= 4; t++) meter.add_frame(t, { 3: 2, 7: t === 4 ? 8 : 0 });
  assert.equal(meter.activity(3), 8 / 4);
  assert.equal(meter.activity(7), 8 / 4);
  assert.equal(meter.activity(99), 0);
  // frames older than the window are forgotten
  for (let t = 5; t <= 12; t++) meter.add_frame(t, {});
  assert.equal(meter.activity(3), 0);
  assert.equal(meter.activity(7), 0);
});
