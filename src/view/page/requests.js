// SPDX-License-Identifier: MIT
// The server's HTTP API and stream (docs/viewer.md, "Protocol"). When the page's own URL has
// ?token=T, every request and the stream pass it on.

const page_params = new URLSearchParams(globalThis.location ? location.search : '');
export const token = page_params.get('token');

/** The URL of an API path with its query, the token added when the page has one. */
export function api_url(path, query = {}) {
  const url = new URL(path, location.href);
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) url.searchParams.set(k, v);
  if (token) url.searchParams.set('token', token);
  return url.toString();
}

/** GET a JSON answer; a refusal throws an Error naming the path, the status and the server's error. */
export async function get_json(path, query) {
  const response = await fetch(api_url(path, query), { cache: 'no-store' });
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) {
    throw new Error(`${path}: ${response.status}${body && body.error ? `: ${body.error}` : ''}`);
  }
  return body;
}

export const api = {
  info: () => get_json('/api/info'),
  kinds: () => get_json('/api/kinds'),
  agents: () => get_json('/api/agents'),
  agent: (id) => get_json(`/api/agents/${id}`),
  shape: (hex) => get_json(`/api/shapes/${hex}`),
  history: (id, before, count) => get_json(`/api/agents/${id}/history`, { before, count }),
  agent_stats: (id) => get_json(`/api/agents/${id}/stats`),
};

/**
 * The WebSocket stream: reconnects after a second when closed; on_message(msg) gets each parsed
 * message, on_status(text) "open"/"closed". subscribe(ids) replaces the set (resent on reconnect).
 */
export class Stream {
  constructor(on_message, on_status = () => {}) {
    this.on_message = on_message;
    this.on_status = on_status;
    this.ids = [];
    this.closed = false;
    this.connect();
  }

  connect() {
    const url = new URL('/api/stream', location.href);
    url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
    if (token) url.searchParams.set('token', token);
    this.ws = new WebSocket(url);
    this.ws.onopen = () => {
      this.on_status('open');
      this.send({ subscribe: this.ids });
    };
    this.ws.onmessage = (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      this.on_message(msg);
    };
    this.ws.onclose = () => {
      this.on_status('closed');
      if (!this.closed) setTimeout(() => this.connect(), 1000);
    };
  }

  send(obj) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(obj));
  }

  subscribe(ids) {
    this.ids = ids.slice();
    this.send({ subscribe: this.ids });
  }

  close() {
    this.closed = true;
    this.ws?.close();
  }
}
