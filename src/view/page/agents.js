// SPDX-License-Identifier: MIT
// The agent list's logic, without the DOM: filtering by a search text, a brain and a label, and
// the order by activity (docs/viewer.md, "The page"). Agents are the rows of GET /api/agents.

/** The text an agent is searched by: its id, label, brain and running path, lower case. */
function agent_search_text(agent) {
  const running = Array.isArray(agent.running) ? agent.running.join(' ') : '';
  return `${agent.id} ${agent.label ?? ''} ${agent.brain ?? ''} ${running}`.toLowerCase();
}

/**
 * The agents that match every filter given:
 *   search: words that must all appear in the id, label, brain or running path (any case);
 *   brain:  the brain's name, exactly ('' or null: any);
 *   label:  text the label must contain (any case; '' or null: any).
 */
export function agents_filter(agents, { search = '', brain = '', label = '' } = {}) {
  const words = search.toLowerCase().split(/\s+/).filter((w) => w.length > 0);
  const label_text = (label ?? '').toLowerCase();
  return agents.filter((agent) => {
    if (brain && agent.brain !== brain) return false;
    if (label_text && !(agent.label ?? '').toLowerCase().includes(label_text)) return false;
    if (words.length === 0) return true;
    const text = agent_search_text(agent);
    return words.every((w) => text.includes(w));
  });
}

/** A copy sorted by activity, most active first; equal activities by id, lowest first. */
export function agents_sort(agents) {
  return agents.slice().sort((a, b) => (b.activity ?? 0) - (a.activity ?? 0) || a.id - b.id);
}

/** The brains' names that the agents have, sorted, each once. */
export function agents_brains(agents) {
  return [...new Set(agents.map((a) => a.brain).filter((b) => typeof b === 'string'))].sort();
}

/**
 * Activity between two polls of /api/agents, from the stream's frame counts: keeps, per agent,
 * the transitions of the frames of the last `window_seconds` and gives transitions per second.
 */
export class ActivityMeter {
  constructor(window_seconds = 5) {
    this.window_seconds = window_seconds;
    this.frames = []; // [{time, counts: {id: n}}], oldest first
  }

  /** A frame message of the stream: {"type": "frame", "time", "counts": {id: n}}. */
  add_frame(time, counts) {
    this.frames.push({ time, counts: counts ?? {} });
    const oldest = time - this.window_seconds;
    while (this.frames.length > 0 && this.frames[0].time < oldest) this.frames.shift();
  }

  /** Transitions per second of the agent over the frames kept, or null with fewer than two. */
  activity(id) {
    if (this.frames.length < 2) return null;
    const span = this.frames[this.frames.length - 1].time - this.frames[0].time;
    if (!(span > 0)) return null;
    let total = 0;
    for (let i = 1; i < this.frames.length; i++) total += this.frames[i].counts[id] ?? 0;
    return total / span;
  }
}
