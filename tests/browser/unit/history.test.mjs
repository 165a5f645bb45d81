// SPDX-License-Identifier: MIT
// The timeline's history (src/view/page/history.js) against a scripted agent: every state the
// agent went through is computed here on its own, the history is given windows as the server's
// /history gives them and live records as the stream does, and stepping back and forth must show
// each of those states in turn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { History, STATUS, statuses_after } from '../../../src/view/page/history.js';

/** A scripted agent: n nodes, `count` records (status changes and thinks), seeded. */
function script(n, count, seed = 7) {
  let s = seed;
  const rand = (k) => ((s = (s * 1103515245 + 12345) % 2147483648) % k);
  const statuses = new Array(n).fill(STATUS.READY);
  const initial = statuses.slice();
  const records = [];
  const states = [initial.slice()]; // states[k]: after k records
  for (let seq = 1; seq <= count; seq++) {
    const time = seq * 0.1;
    if (rand(4) === 0) {
      records.push({ seq, type: 'think', time, think: seq, sleep: rand(3) === 0 ? null : rand(10) / 4, cause: 'deadline' });
    } else {
      const node = rand(n);
      let to = rand(4);
      if (to === statuses[node]) to = (to + 1) % 4;
      records.push({ seq, type: 'status', time, think: seq, node, from: statuses[node], to });
      statuses[node] = to;
    }
    states.push(statuses.slice());
  }
  return { initial, records, states, now: statuses.slice() };
}

/** The server's /history?before=&count= on the scripted records. */
function server_window(sc, before, count) {
  const end = Math.min(before, sc.records.length + 1) - 1; // newest seq in the window
  const start = Math.max(1, end - count + 1);
  return {
    oldest: 1,
    newest: sc.records.length,
    records: sc.records.slice(start - 1, end),
    statuses_before: sc.states[start - 1].slice(),
  };
}

test('statuses_after applies status records only', () => {
  const sc = script(6, 50);
  assert.deepEqual(statuses_after(sc.initial, sc.records), sc.now);
  assert.deepEqual(statuses_after(sc.states[20], sc.records.slice(20, 30)), sc.states[30]);
});

test('stepping back through fetched windows shows every earlier state, and forward again', () => {
  const sc = script(12, 1300);
  const h = new History(sc.now, sc.records.length);
  assert.equal(h.seq, 1300);
  assert.ok(h.more_before);
  let fetched = 0;
  // back one record at a time to the first, fetching windows of 500 as a page does
  for (let seq = 1300; seq >= 0; seq--) {
    assert.equal(h.seq, seq);
    assert.deepEqual(h.statuses, sc.states[seq], `state after record ${seq}`);
    if (!h.back()) {
      if (!h.more_before) break;
      fetched += h.prepend(server_window(sc, h.first_seq, 500));
      assert.ok(h.back(), 'a window was fetched, so there is a record to go back over');
    }
  }
  assert.equal(h.seq, 0);
  assert.equal(fetched, 1300);
  assert.equal(h.more_before, false);
  assert.deepEqual(h.statuses, sc.initial);
  for (let seq = 1; seq <= 1300; seq += 37) {
    h.seek_seq(seq);
    assert.deepEqual(h.statuses, sc.states[seq], `seek to ${seq}`);
  }
  h.to_end();
  assert.deepEqual(h.statuses, sc.now);
  assert.ok(h.at_end);
});

test('transition steps skip thinks and land just before / just after a status change', () => {
  const sc = script(5, 200);
  const h = new History(sc.now, 200);
  h.prepend(server_window(sc, 201, 200));
  const transitions = sc.records.filter((r) => r.type === 'status').map((r) => r.seq);
  // back: each step undoes exactly the newest remaining transition
  for (let k = transitions.length - 1; k >= 0; k--) {
    assert.ok(h.step_back());
    assert.equal(h.seq, transitions[k] - 1);
    assert.deepEqual(h.statuses, sc.states[transitions[k] - 1]);
  }
  assert.equal(h.step_back(), false);
  for (const seq of transitions) {
    assert.ok(h.step_forward());
    assert.equal(h.seq, seq);
    assert.deepEqual(h.statuses, sc.states[seq]);
  }
  assert.equal(h.step_forward(), false);
});

test('live records follow at the end, and stay out of view while scrubbed back', () => {
  const sc = script(8, 300);
  const h = new History(sc.states[100], 100);
  assert.equal(h.append(sc.records.slice(100, 150)), false);
  assert.deepEqual(h.statuses, sc.states[150]);
  assert.equal(h.seq, 150);
  h.seek_seq(120);
  assert.deepEqual(h.statuses, sc.states[120]);
  h.append(sc.records.slice(140, 200)); // overlap: the ones kept already are skipped
  assert.equal(h.seq, 120);
  assert.equal(h.last_seq, 200);
  assert.deepEqual(h.statuses, sc.states[120]);
  h.to_end();
  assert.deepEqual(h.statuses, sc.states[200]);
  // a gap (records dropped) is reported, nothing added
  assert.equal(h.append(sc.records.slice(210, 220)), true);
  assert.equal(h.last_seq, 200);
});

test('a reload or lost records bound how far back the timeline goes', () => {
  const sc = script(4, 60);
  const reload = { seq: 61, type: 'reload', time: 6.1, think: 61, from_shape: 'a', shape: 'b' };
  const after = [reload, { seq: 62, type: 'status', time: 6.2, think: 62, node: 0, from: sc.now[0], to: (sc.now[0] + 1) % 4 }];
  const h = new History(sc.now, 60);
  h.append(after);
  h.seek_index(0);
  assert.equal(h.seq, 61, 'no going back over the reload');
  assert.equal(h.more_before, false);
  assert.deepEqual(h.statuses, sc.now);
  // a window with a loss in it: only what follows it is kept
  const h2 = new History(sc.now, 60);
  const window = server_window(sc, 61, 30);
  window.records[9] = { seq: window.records[9].seq, type: 'lost', time: 0, think: 0, count: 3 };
  const kept = h2.prepend(window);
  assert.equal(kept, 20);
  assert.equal(h2.more_before, false);
  h2.seek_index(0);
  assert.deepEqual(h2.statuses, sc.states[40]);
});

test('a window across a reload into a tree of other nodes keeps the records after the reload', () => {
  const old = script(4, 20); // seq 1 to 20, then the reload (21), then 30 records of 5 nodes
  const sc = script(5, 30, 9);
  const reload = { seq: 21, type: 'reload', time: 2.1, think: 21, from_shape: 'a', shape: 'b' };
  const after = sc.records.map((r) => ({ ...r, seq: r.seq + 21 }));
  const h = new History(sc.now, 51);
  const kept = h.prepend({ oldest: 1, newest: 51, records: old.records.concat([reload], after), statuses_before: old.initial });
  assert.equal(kept, 30);
  assert.equal(h.more_before, false);
  assert.deepEqual(h.statuses, sc.now);
  for (let k = 30; k >= 0; k--) {
    h.seek_index(k);
    assert.equal(h.seq, 21 + k);
    assert.deepEqual(h.statuses, sc.states[k]);
  }
  assert.equal(h.back(), false);
});

test('past the limit the oldest records are dropped into the base', () => {
  const sc = script(6, 400);
  const h = new History(sc.states[0], 0, 100);
  h.append(sc.records);
  assert.equal(h.records.length, 100);
  assert.equal(h.first_seq, 301);
  assert.deepEqual(h.statuses, sc.now);
  h.seek_index(0);
  assert.deepEqual(h.statuses, sc.states[300]);
});

test('derived: last results, running since, the newest think\'s sleep at the cursor', () => {
  const records = [
    { seq: 1, type: 'think', time: 1, sleep: 0.5 },
    { seq: 2, type: 'status', time: 1, node: 0, from: 0, to: 3 },
    { seq: 3, type: 'status', time: 1, node: 1, from: 0, to: 1 },
    { seq: 4, type: 'think', time: 2, sleep: 2 },
    { seq: 5, type: 'status', time: 2, node: 2, from: 0, to: 3 },
    { seq: 6, type: 'status', time: 3, node: 2, from: 3, to: 2 },
  ];
  const h = new History([0, 0, 0], 0);
  h.append(records);
  let d = h.derived();
  assert.deepEqual(d.last, [null, STATUS.SUCCESS, STATUS.FAILED]);
  assert.deepEqual(d.since, [1, null, null]);
  assert.equal(d.sleep, 2);
  assert.equal(d.time, 3);
  h.seek_seq(5);
  d = h.derived();
  assert.deepEqual(d.last, [null, STATUS.SUCCESS, null]);
  assert.deepEqual(d.since, [1, null, 2]);
  h.seek_seq(2);
  assert.equal(h.derived().sleep, 0.5);
});
