// SPDX-License-Identifier: MIT
// An agent's history as the timeline scrubs it: a run of records (contiguous by seq, oldest
// first), the statuses before its first record, and a cursor: the number of records applied.
// Going back undoes STATUS records (each has `from` and `to`) and KEY records (`before` and
// `after`: the blackboard follows the cursor too), going forward redoes them. Older
// windows (GET /api/agents/<id>/history?before=&count=) are put in front; live records are put
// at the end. No DOM, no fetching: the page does those (main.js).

export const STATUS = { READY: 0, SUCCESS: 1, FAILED: 2, RUNNING: 3 };
export const STATUS_NAMES = ['READY', 'SUCCESS', 'FAILED', 'RUNNING'];

/**
 * Whether the statuses before a record cannot be had by undoing it: a reload (another shape) or a
 * `lost` record (records the host's ring lost). The timeline goes back no further than just after one.
 */
export function is_barrier(record) {
  return record.type === 'reload' || record.type === 'lost';
}

/** Whether a record writes a blackboard key (each has `key`, `before` and `after`). */
export function is_key_write(record) {
  return record.type === 'key' && Number.isInteger(record.key);
}

/** Whether a record changes a node's status. */
export function is_transition(record) {
  return record.type === 'status' && Number.isInteger(record.node);
}

/** statuses after applying `records` in order to a copy of `statuses_before`. */
export function statuses_after(statuses_before, records) {
  const out = statuses_before.slice();
  for (const r of records) if (is_transition(r) && r.node < out.length) out[r.node] = r.to;
  return out;
}

/** A key record undone (its value before) or redone (after) on values by key. */
function undo_key(keys, r) {
  if (is_key_write(r) && r.key < keys.length) keys[r.key] = r.before;
}
function redo_key(keys, r) {
  if (is_key_write(r) && r.key < keys.length) keys[r.key] = r.after;
}

/** The blackboard after applying `records` in order to a copy of `keys_before`. */
export function keys_after(keys_before, records) {
  const out = keys_before.slice();
  for (const r of records) redo_key(out, r);
  return out;
}

export class History {
  /**
   * statuses: the agent's statuses now (GET /api/agents/<id>), seq: its last record's seq then.
   * limit: the most records kept; past it the oldest are dropped (applied into the base).
   */
  constructor(statuses, seq, limit = 50000, keys = []) {
    this.base = statuses.slice(); // statuses before records[0]
    this.keys = keys.slice(); // the blackboard's values after records[0..cursor), by key
    this.keys_base = keys.slice(); // before records[0]
    this.records = [];
    this.first_seq = seq + 1; // seq of records[0] (or of the next record when there is none)
    this.cursor = 0; // records applied
    this.statuses = statuses.slice(); // statuses after records[0..cursor)
    this.oldest = null; // oldest seq the server keeps, when known
    this.barrier = false; // a reload or a loss lies just before records[0]: no going further back
    this.floor = 0; // the cursor's lowest: just after the newest barrier record kept
    this.limit = limit;
  }

  /** seq of the last record applied (the state shown is the one right after it). */
  get seq() {
    return this.cursor > 0 ? this.records[this.cursor - 1].seq : this.first_seq - 1;
  }

  get last_seq() {
    return this.first_seq + this.records.length - 1;
  }

  get at_end() {
    return this.cursor === this.records.length;
  }

  /** Whether older records could still be fetched (none kept before, no reload barrier). */
  get more_before() {
    if (this.barrier || this.floor > 0) return false;
    if (this.oldest === null) return this.first_seq > 1;
    return this.first_seq > this.oldest;
  }

  /** Whether the state at the cursor has been stepped back from the newest. */
  get scrubbed() {
    return !this.at_end;
  }

  /**
   * Puts an older window in front: {oldest, records (ending at first_seq - 1), statuses_before}.
   * Records at or before a reload in the window are not kept: the shape changed there (the
   * barrier stops going back). Returns the number of records added.
   */
  prepend(window) {
    if (typeof window.oldest === 'number') this.oldest = window.oldest;
    let recs = (window.records ?? []).filter((r) => r.seq < this.first_seq);
    if (recs.length === 0) {
      if (this.oldest === null || this.first_seq <= this.oldest) this.oldest = this.first_seq;
      return 0;
    }
    if (recs[recs.length - 1].seq !== this.first_seq - 1) {
      throw new Error(`history window ends at seq ${recs[recs.length - 1].seq}, expected ${this.first_seq - 1}`);
    }
    let base = window.statuses_before;
    const reload = recs.findLastIndex(is_barrier);
    if (reload >= 0) {
      base = statuses_after(base, recs.slice(0, reload + 1));
      recs = recs.slice(reload + 1);
      this.barrier = true;
      // a reload into a tree of other nodes: the statuses before the window are the old tree's,
      // so those before the records kept are the timeline's own, undone
      if (base.length !== this.base.length) base = this.undone(recs);
    }
    if (base.length !== this.base.length) {
      // another shape: stop here rather than mix two trees' indices
      this.barrier = true;
      return 0;
    }
    this.base = base.slice();
    // the blackboard before the records put in front: the values at the cursor, undone
    const keys = this.keys.slice();
    for (let c = this.cursor - 1; c >= 0; c--) undo_key(keys, this.records[c]);
    for (let i = recs.length - 1; i >= 0; i--) undo_key(keys, recs[i]);
    this.keys_base = keys;
    this.records = recs.concat(this.records);
    this.first_seq -= recs.length;
    this.cursor += recs.length;
    if (this.floor > 0) this.floor += recs.length;
    return recs.length;
  }

  /**
   * Puts live records at the end (those at or before the last kept are skipped). When the cursor
   * was at the end it follows. Returns whether there was a gap (the records are then not added:
   * the caller fetches the missing ones first).
   */
  append(records) {
    const follow = this.at_end;
    for (const r of records) {
      if (r.seq <= this.last_seq) continue;
      if (r.seq !== this.last_seq + 1) return true;
      this.records.push(r);
      if (is_barrier(r)) this.floor = this.records.length;
      if (follow) {
        this.apply(r);
        this.cursor++;
      }
    }
    this.trim();
    return false;
  }

  trim() {
    const extra = this.records.length - this.limit;
    if (extra <= 0) return;
    const dropped = this.records.splice(0, extra);
    for (const r of dropped) if (is_transition(r) && r.node < this.base.length) this.base[r.node] = r.to;
    for (const r of dropped) redo_key(this.keys_base, r);
    this.first_seq += extra;
    this.cursor = Math.max(0, this.cursor - extra);
    this.floor = Math.max(0, this.floor - extra);
    if (this.cursor === 0) {
      this.statuses = this.base.slice();
      this.keys = this.keys_base.slice();
    }
    this.barrier = true;
  }

  /** The statuses before `older` and the records kept: those at the cursor, all undone. */
  undone(older) {
    const out = this.statuses.slice();
    const undo = (r) => {
      if (is_transition(r) && r.node < out.length) out[r.node] = r.from;
    };
    for (let c = this.cursor - 1; c >= 0; c--) undo(this.records[c]);
    for (let i = older.length - 1; i >= 0; i--) undo(older[i]);
    return out;
  }

  apply(r) {
    if (is_transition(r) && r.node < this.statuses.length) this.statuses[r.node] = r.to;
    redo_key(this.keys, r);
  }

  undo(r) {
    if (is_transition(r) && r.node < this.statuses.length) this.statuses[r.node] = r.from;
    undo_key(this.keys, r);
  }

  /** One record back (any type). Returns false at the first kept. */
  back() {
    if (this.cursor <= this.floor) return false;
    this.cursor--;
    this.undo(this.records[this.cursor]);
    return true;
  }

  /** One record forward. Returns false at the newest kept. */
  forward() {
    if (this.cursor === this.records.length) return false;
    this.apply(this.records[this.cursor]);
    this.cursor++;
    return true;
  }

  /**
   * Back to just before the previous transition (the state shown then is the one before the
   * newest status change at or before the cursor). Returns false when none is kept.
   */
  step_back() {
    let c = this.cursor;
    while (c > this.floor && !is_transition(this.records[c - 1])) c--;
    if (c <= this.floor) return false;
    this.seek_index(c - 1);
    return true;
  }

  /** Forward past the next transition. Returns false when none is kept. */
  step_forward() {
    let c = this.cursor;
    while (c < this.records.length && !is_transition(this.records[c])) c++;
    if (c === this.records.length) return false;
    this.seek_index(c + 1);
    return true;
  }

  /** To `index` records applied (clamped). */
  seek_index(index) {
    const target = Math.max(this.floor, Math.min(this.records.length, index));
    while (this.cursor > target) this.back();
    while (this.cursor < target) this.forward();
  }

  /** To the state right after the record `seq` (clamped to what is kept). */
  seek_seq(seq) {
    this.seek_index(seq - this.first_seq + 1);
  }

  /** To the newest. */
  to_end() {
    this.seek_index(this.records.length);
  }

  /** The records applied, newest last (for the timeline's list). */
  applied() {
    return this.records.slice(0, this.cursor);
  }

  /**
   * What the records applied say of each node, for drawing a past state: last[i] the last result
   * (SUCCESS or FAILED) reached in the records kept, since[i] the time node i became RUNNING when
   * it is running, sleep the sleep of the newest think, time the newest record's time. Unknown
   * values are null (the page then shows the live ones when the cursor is at the end).
   */
  derived() {
    const n = this.statuses.length;
    const last = new Array(n).fill(null);
    const since = new Array(n).fill(null);
    let sleep = null;
    let time = null;
    let seen_think = false;
    for (let c = this.cursor - 1; c >= 0; c--) {
      const r = this.records[c];
      if (time === null && typeof r.time === 'number') time = r.time;
      if (!seen_think && r.type === 'think') {
        seen_think = true;
        if (typeof r.sleep === 'number') sleep = r.sleep;
      }
      if (!is_transition(r) || r.node >= n) continue;
      if (last[r.node] === null && (r.to === STATUS.SUCCESS || r.to === STATUS.FAILED)) last[r.node] = r.to;
      if (since[r.node] === null && r.to === STATUS.RUNNING && this.statuses[r.node] === STATUS.RUNNING) {
        since[r.node] = r.time;
      }
    }
    return { last, since, sleep, time };
  }
}
