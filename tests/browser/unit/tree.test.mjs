// SPDX-License-Identifier: MIT
// The texts of the tree's nodes (src/view/page/tree.js): a parameter as the kind table of
// GET /api/kinds shows it, and as before for a kind the table does not know.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { coverage_of, format_param, kind_table, param_text, short_kind } from '../../../src/view/page/tree.js';

// as the server answers /api/kinds (an excerpt)
const KINDS = {
  kinds: [
    { name: 'BehaviourNode', default_name: '', base: null, flags: ['ds'], param: null },
    { name: 'PriorityNode', default_name: 'Priority', base: 'BehaviourNode', flags: ['ds', 'selects', 'periodic'], param: 'period %.14g' },
    { name: 'WaitNode', default_name: 'Wait', base: 'BehaviourNode', flags: ['ds'], param: '%.14g s' },
    { name: 'RepeatNode', default_name: 'Repeat', base: 'BehaviourNode', flags: [], param: '%.14g times' },
  ],
};

test('kind_table: a Map by class name; no table gives an empty one', () => {
  const kinds = kind_table(KINDS);
  assert.equal(kinds.size, 4);
  assert.deepEqual(kinds.get('PriorityNode').flags, ['ds', 'selects', 'periodic']);
  assert.equal(kind_table(null).size, 0);
  assert.equal(kind_table({}).size, 0);
});

test('param_text: the kind\'s format with the short number, "param" without one, nothing for none', () => {
  const kinds = kind_table(KINDS);
  assert.equal(param_text(0.30000000000000004, kinds.get('PriorityNode')), 'period 0.3');
  assert.equal(param_text(2, kinds.get('WaitNode')), '2 s');
  assert.equal(param_text(3, kinds.get('RepeatNode')), '3 times');
  assert.equal(param_text(0.5, kinds.get('NoSuchNode')), 'param 0.5');
  assert.equal(param_text(0.5, kinds.get('BehaviourNode')), 'param 0.5');
  assert.equal(param_text(0.5, { param: 'no number here' }), 'param 0.5');
  assert.equal(param_text(null, kinds.get('PriorityNode')), '');
  assert.equal(param_text(undefined, undefined), '');
  assert.equal(param_text(0.5, undefined), `param ${format_param(0.5)}`);
});

test('short_kind: the class name without its Node suffix', () => {
  assert.equal(short_kind('PriorityNode'), 'Priority');
  assert.equal(short_kind('NotDecorator'), 'NotDecorator');
  assert.equal(short_kind(undefined), '?');
});

test('coverage_of: a node visited or set running is covered; none, or zeros, is not; shared places are not judged', () => {
  assert.deepEqual(coverage_of({ node: 3, visits: 2, runs: 0 }, 0), { covered: true, line: '' });
  assert.deepEqual(coverage_of({ node: 3, visits: 0, runs: 1 }, 0), { covered: true, line: '' });
  const never = { covered: false, line: 'not covered: never visited in these figures' };
  assert.deepEqual(coverage_of({ node: 3, visits: 0, runs: 0, successes: 0 }, 0), never);
  assert.deepEqual(coverage_of(undefined, 0), never);
  assert.deepEqual(coverage_of({ node: 3, visits: 0, runs: 0 }, 2), { covered: null, line: '' });
});
