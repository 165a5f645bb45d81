// SPDX-License-Identifier: MIT
// The page's replay of statuses and of a blackboard (src/view/page/history.js) against C's (bt_rec_entry_apply, through
// a view's statuses_before), on the same records: BT_REPLAY_FIXTURE names what
// tests/view/replay_fixture.c wrote of three agents, live and from a log: for each, its statuses
// now, its shape, its whole history and, for every record s kept, the window of s alone, whose
// statuses_before are C's statuses before s (run.sh replay; ctest -R browser.replay).
//
// The page replays by node: a record names one place of a node placed under several parents, and
// the page's other places of it keep their status, where C's (and the instance's) have one status
// for all (the shape's JSON says how many places a node has, not which): those places are left
// out of the comparison, and the test checks that they are the only difference.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { History, is_barrier, statuses_after } from '../../src/view/page/history.js';

const file = process.env.BT_REPLAY_FIXTURE;
const fixture = file ? JSON.parse(fs.readFileSync(file, 'utf8')) : null;

/** The statuses of the places of no shared node: `${node}:${status}` joined, for comparing. */
function unshared(statuses, shape) {
  return statuses.map((s, n) => (shape.nodes[n]?.shared ? null : `${n}:${s}`)).filter((x) => x !== null).join(' ');
}

for (const a of fixture?.agents ?? []) {
  const name = `${a.source} agent ${a.agent}`;
  const shape = a.shape;
  const windows = new Map(a.windows.map((w) => [w.records[0].seq, w]));

  test(`${name}: the windows hold the records of the whole history, each with C's statuses before it`, () => {
    assert.equal(a.windows.length, a.full.records.length);
    for (const r of a.full.records) assert.deepEqual(windows.get(r.seq).records, [r]);
    assert.deepEqual(windows.get(a.full.records[0].seq).statuses_before, a.full.statuses_before);
    assert.equal(a.now.seq, a.full.newest);
  });

  test(`${name}: statuses_after, the page's replay, gives C's statuses before the next record`, () => {
    let compared = 0;
    let shared_differ = 0;
    for (const r of a.full.records) {
      const next = windows.get(r.seq + 1);
      // the last record; another shape, which the page does not replay into (a reload is a
      // barrier): a live view takes it at the reload record, a log at its attach just before it
      if (!next || r.type === 'reload' || next.records[0].type === 'reload') continue;
      const page = statuses_after(windows.get(r.seq).statuses_before, [r]);
      const c = next.statuses_before;
      assert.equal(page.length, c.length, `record ${r.seq}`);
      assert.equal(unshared(page, shape), unshared(c, shape), `after record ${r.seq} (${JSON.stringify(r)})`);
      if (page.join() !== c.join()) shared_differ++;
      compared++;
    }
    assert.ok(compared > 50, `${compared} records compared`);
    if (shape.nodes.some((n) => n.shared)) assert.ok(shared_differ > 0, 'the shared places differ somewhere (by node, by state)');
    else assert.equal(shared_differ, 0);
  });

  // The timeline, as main.js drives it: the statuses now, the history put in front, then stepped
  // back record by record (undoing) and forward again (redoing). C replays forward from a base
  // (a reload: the new shape READY, then the statuses the transfer carried over, which it
  // records), the timeline undoes from the statuses now: they must meet at every record.
  test(`${name}: the timeline stepped back and forth shows C's statuses before each record`, () => {
    const h = new History(a.now.statuses, a.now.seq);
    const added = h.prepend(a.full);
    assert.ok(added > 50, `${added} records in the timeline`);
    const expect = (c) =>
      c === h.records.length ? a.now.statuses : windows.get(h.records[c].seq).statuses_before;
    let compared = 0;
    for (let c = h.records.length; c >= h.floor; c--) {
      h.seek_index(c);
      assert.equal(unshared(h.statuses, shape), unshared(expect(c), shape), `back, at ${c} records applied`);
      compared++;
    }
    assert.equal(h.back(), false);
    for (let c = h.floor + 1; c <= h.records.length; c++) {
      assert.equal(h.forward(), true);
      assert.equal(unshared(h.statuses, shape), unshared(expect(c), shape), `forward, at ${c} records applied`);
      compared++;
    }
    assert.ok(compared > 100);
    // the blackboard: C's keys_before each record (the values now undone, or a log's file
    // replayed), the timeline's undone from the agent's values now
    const k = new History(a.now.statuses, a.now.seq, undefined, a.now.keys ?? []);
    k.prepend(a.full);
    let keys_compared = 0;
    for (let c = k.records.length; c >= k.floor; c--) {
      k.seek_index(c);
      const want = c === k.records.length ? a.now.keys : windows.get(k.records[c].seq).keys_before;
      if (!Array.isArray(want)) continue; // C does not know them (a loss or a reload lies between)
      assert.deepEqual(k.keys, want, `keys at ${c} records applied`);
      keys_compared++;
    }
    if ((a.shape.keys ?? []).length) assert.ok(keys_compared > 50, `${keys_compared} blackboards compared`);
    const reload = a.full.records.find((r) => r.type === 'reload');
    if (reload) assert.ok(h.barrier && h.first_seq === reload.seq + 1 && is_barrier(reload));
  });
}

test('the fixture has live and log agents, one with a shared node and one reloaded', { skip: !fixture && 'BT_REPLAY_FIXTURE not set (run.sh replay)' }, () => {
  assert.deepEqual([...new Set(fixture.agents.map((a) => a.source))], ['live', 'log']);
  assert.ok(fixture.agents.some((a) => a.shape.nodes.some((n) => n.shared)));
  assert.ok(fixture.agents.some((a) => a.source === 'log' && a.full.records.some((r) => r.type === 'reload')));
  for (const source of ['live', 'log'])
    assert.ok(fixture.agents.some((a) => a.source === source && a.full.records.filter((r) => r.type === 'key').length > 20));
});
