// Shelly console. Every text from a model, a tool, a user or a file goes into the page through
// textContent or an attribute value, never as HTML. The token comes from the link's fragment and
// travels only in the Authorization header, the event stream's included (read with fetch).
"use strict";
(function () {
  const LONG = 280;
  const state = {
    token: null, sessions: new Map(), selected: null, detail: null, detailSeq: 0,
    last: 0, gaps: 0, count: 0, controller: null, stopped: false, refresh: null, listTimer: null,
    open: new Set(), drawn: {}
  };

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k === "onclick") node.addEventListener("click", v);
      else node.setAttribute(k, String(v));
    }
    for (const c of children) {
      if (c === null || c === undefined) continue;
      node.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    }
    return node;
  }

  function svg(tag, attrs, text) {
    const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  /**
   * A text shown whole when short, folded behind its first line when long; a fold the person
   * opened stays open when the view is drawn again (key names it).
   */
  function block(text, cls, key) {
    const t = text === null || text === undefined ? "" : String(text);
    if (t.length <= LONG && t.split("\n").length <= 4) return el("pre", { class: cls }, t);
    const head = t.slice(0, 120).split("\n")[0] + " … (" + t.length + " characters)";
    const fold = el("details", { class: cls, open: key && state.open.has(key) }, el("summary", null, head), el("pre", null, t));
    if (key) fold.addEventListener("toggle", () => { if (fold.open) state.open.add(key); else state.open.delete(key); });
    return fold;
  }

  function tokens(n) { return (n || 0).toLocaleString("en-US") + " tok"; }
  function usd(c) {
    if (!c) return "$0";
    const s = "$" + (c.usd || 0).toFixed(4);
    return c.unpriced ? s + " (+" + c.unpriced + " unpriced tok)" : s;
  }
  function ms(v) { return v < 0 ? "" : v < 1000 ? v + " ms" : (v / 1000).toFixed(1) + " s"; }
  function ago(iso) {
    if (!iso) return "";
    const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
    return s < 60 ? s + " s ago" : s < 3600 ? Math.round(s / 60) + " min ago" : new Date(iso).toLocaleString();
  }

  function notice(text) {
    const n = document.getElementById("notice");
    n.textContent = text;
    n.hidden = !text;
  }

  function setStatus(s) {
    const st = document.getElementById("status");
    st.dataset.state = s;
    st.textContent = s;
  }

  async function api(path, options) {
    const o = options || {};
    const headers = { "Authorization": "Bearer " + state.token };
    if (o.body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(path, {
      method: o.method || "GET", headers, cache: "no-store", credentials: "omit",
      body: o.body === undefined ? undefined : JSON.stringify(o.body)
    });
    const json = await res.json().catch(() => ({}));
    if (res.status === 401) notice("The token was refused: open the link the console printed.");
    if (!res.ok) throw new Error(json.error || ("HTTP " + res.status));
    return json;
  }

  // ---- sessions -------------------------------------------------------------------------------

  async function loadSessions() {
    const page = await api("/api/sessions");
    state.sessions = new Map(page.sessions.map(s => [s.id, s]));
    renderSessions();
    return page.seq;
  }

  function scheduleSessions() {
    if (state.listTimer) return;
    state.listTimer = setTimeout(() => {
      state.listTimer = null;
      loadSessions().catch(() => {});
    }, 250);
  }

  function renderSessions() {
    const list = document.getElementById("sessions");
    clear(list);
    const all = [...state.sessions.values()].sort((a, b) => (b.lastActivity || "").localeCompare(a.lastActivity || ""));
    if (!all.length) list.appendChild(el("li", { class: "muted" }, "No sessions yet."));
    for (const s of all) {
      const b = el("button", { "data-session": s.id, "aria-current": s.id === state.selected ? "true" : "false",
        onclick: () => select(s.id) },
        el("div", null, el("strong", null, s.agent || "?"),
          s.paused ? el("span", { class: "badge paused" }, "paused") : null,
          s.open ? null : el("span", { class: "badge" }, "saved")),
        el("div", { class: "sid" }, s.id),
        el("div", { class: "muted" }, (s.turns || 0) + " turns · " + tokens(s.usage && s.usage.total) + " · "
          + usd(s.cost) + (s.lastActivity ? " · " + ago(s.lastActivity) : "")));
      list.appendChild(el("li", null, b));
    }
  }

  async function select(id) {
    state.selected = id;
    renderSessions();
    await loadDetail();
  }

  async function loadDetail() {
    if (!state.selected) return;
    const id = state.selected;
    try {
      const d = await api("/api/sessions/" + encodeURIComponent(id));
      if (state.selected !== id) return;
      state.detail = d;
      state.detailSeq = d.seq;
      render();
    } catch (e) {
      notice("Session " + id + ": " + e.message);
    }
  }

  function scheduleDetail() {
    if (state.refresh) return;
    state.refresh = setTimeout(() => {
      state.refresh = null;
      loadDetail();
    }, 150);
  }

  // ---- the event stream -----------------------------------------------------------------------

  async function stream() {
    while (!state.stopped) {
      const controller = new AbortController();
      state.controller = controller;
      try {
        const res = await fetch("/api/events", { headers: { "Authorization": "Bearer " + state.token,
          "Last-Event-ID": String(state.last) }, cache: "no-store", credentials: "omit", signal: controller.signal });
        if (res.status === 401) {
          notice("The token was refused: open the link the console printed.");
          setStatus("offline");
          return;
        }
        if (!res.ok || !res.body) throw new Error("HTTP " + res.status);
        setStatus("live");
        const reader = res.body.getReader();
        const decoder = new TextDecoder();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          let cut;
          while ((cut = buffer.indexOf("\n\n")) >= 0) {
            const frame = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            onFrame(frame);
          }
        }
      } catch (e) {
        // aborted or cut off: reconnect below
      }
      if (state.controller === controller) state.controller = null;
      setStatus("offline");
      if (state.stopped) break;
      await new Promise(r => setTimeout(r, 1000));
    }
  }

  function onFrame(frame) {
    let data = "";
    for (const line of frame.split("\n")) {
      if (line.startsWith("data:")) data += line.slice(5).trimStart();
    }
    if (!data) return;
    const change = JSON.parse(data);
    if (change.type === "reset") {
      state.last = change.seq;
      loadSessions().then(() => loadDetail());
      return;
    }
    if (state.last && change.seq !== state.last + 1) state.gaps++;
    state.last = change.seq;
    state.count++;
    const info = document.getElementById("stream");
    info.dataset.last = state.last;
    info.dataset.gaps = state.gaps;
    info.dataset.count = state.count;
    info.textContent = "event " + state.last;
    apply(change);
  }

  function apply(c) {
    const known = state.sessions.get(c.session);
    if (!known || c.summary || c.newTurn || c.type === "message") scheduleSessions();
    if (known && c.at) known.lastActivity = c.at;
    const d = state.detail;
    if (!d || c.session !== state.selected || c.seq <= state.detailSeq) return;
    const runs = d.runs;
    const find = id => runs.find(r => r.id === id);
    switch (c.type) {
      case "run": {
        if (c.newTurn) { runs.length = 0; d.pending = []; }
        const i = runs.findIndex(r => r.id === c.node.id);
        if (i >= 0) runs[i] = c.node; else runs.push(c.node);
        if (c.summary) scheduleDetail();
        break;
      }
      case "model": {
        const r = find(c.run);
        if (r) r.models.push(c.call);
        if (c.turnPoint) {
          const i = d.turns.findIndex(t => t.turn === c.turnPoint.turn);
          if (i >= 0) d.turns[i] = c.turnPoint; else d.turns.push(c.turnPoint);
        }
        break;
      }
      case "tool": {
        const r = find(c.run);
        if (r) {
          const i = r.tools.findIndex(t => t.id === c.call.id);
          if (i >= 0) r.tools[i] = c.call; else r.tools.push(c.call);
        }
        d.pending = d.pending.filter(p => p.callId !== c.call.id || c.call.state === "waiting");
        break;
      }
      case "decision":
        d.pending = d.pending.filter(p => p.id !== c.pending.id).concat([c.pending]);
        break;
      case "decided":
        d.pending = d.pending.filter(p => p.id !== c.id);
        break;
      case "retry": {
        const r = find(c.run);
        if (r) r.retries.push(c.retry);
        break;
      }
      case "compaction": {
        const r = find(c.run);
        if (r) r.compactions.push(c.compaction);
        break;
      }
      case "message":
      case "cancelled":
        scheduleDetail();
        break;
    }
    render();
  }

  // ---- the selected session -------------------------------------------------------------------

  let frame = 0;
  function render() {
    if (frame) return;
    frame = requestAnimationFrame(() => { frame = 0; renderSession(); });
  }

  /**
   * Draws the selected session, part by part: a part whose data did not change is left as it
   * is, so what the person types (a reason, edited arguments) survives the events that arrive.
   */
  function renderSession() {
    const root = document.getElementById("session");
    const d = state.detail;
    if (!d) return;
    if (root.dataset.session !== d.id) {
      clear(root);
      state.drawn = {};
      root.dataset.session = d.id;
      for (const part of ["head", "chart", "pending", "tree", "conversation"]) root.appendChild(el("div", { "data-part": part }));
    }
    const s = d.summary || {};
    const waiting = s.paused || d.pending.length > 0;
    const busy = waiting || d.runs.some(r => r.state === "running");
    draw(root, "head", [s, waiting, busy, d.open], () => [
      el("h2", null, "Session"),
      el("div", { class: "sid" }, d.id),
      el("div", { class: "summary" },
        el("div", null, "agent: ", el("strong", null, s.agent || "")),
        el("div", null, "turns: " + (s.turns || 0)),
        el("div", null, "tokens: " + tokens(s.usage && s.usage.total)),
        el("div", null, "cost: " + usd(s.cost)),
        el("div", null, waiting ? el("span", { class: "badge paused" }, "waiting for a decision")
          : el("span", { class: "badge" }, "not paused")),
        d.open && busy ? el("button", { class: "danger", id: "cancel-turn", onclick: () => cancel(null) }, "Cancel turn")
          : null)]);
    draw(root, "chart", d.turns, () => [el("h3", null, "Tokens and cost per turn"), chart(d.turns)]);
    draw(root, "pending", d.pending, () => [el("h3", null, "Waiting for a decision"), pending(d.pending)]);
    draw(root, "tree", d.runs, () => [el("h3", null, "Current turn"), tree(d.runs)]);
    draw(root, "conversation", d.conversation, () => [el("h3", null, "Conversation"), conversation(d.conversation)]);
  }

  function draw(root, part, data, make) {
    const sign = JSON.stringify(data);
    if (state.drawn[part] === sign) return;
    state.drawn[part] = sign;
    const box = root.querySelector("[data-part='" + part + "']");
    clear(box);
    for (const node of make()) box.appendChild(node);
  }

  function chart(turns) {
    const W = 400, H = 110, pad = 18;
    const box = svg("svg", { class: "chart", viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": "tokens and cost per turn" });
    if (!turns.length) {
      box.appendChild(svg("text", { x: 10, y: 20 }, "no turns yet"));
      return box;
    }
    const maxT = Math.max(1, ...turns.map(t => t.tokens));
    const maxC = Math.max(1e-9, ...turns.map(t => t.usd));
    const step = (W - 2 * pad) / turns.length;
    const points = [];
    turns.forEach((t, i) => {
      const h = (H - 2 * pad) * t.tokens / maxT;
      const x = pad + i * step;
      const bar = svg("rect", { class: "bar", x: x + step * .15, y: H - pad - h, width: step * .7, height: Math.max(h, 1) });
      bar.appendChild(svg("title", {}, "turn " + t.turn + ": " + tokens(t.tokens) + " (in " + t.input + ", out " + t.output
        + "), $" + t.usd.toFixed(4)));
      box.appendChild(bar);
      box.appendChild(svg("text", { x: x + step * .5, y: H - 4, "text-anchor": "middle" }, String(t.turn)));
      const cy = H - pad - (H - 2 * pad) * t.usd / maxC;
      points.push((x + step * .5) + "," + cy);
      box.appendChild(svg("circle", { class: "dot", cx: x + step * .5, cy: cy, r: 2.5 }));
    });
    box.appendChild(svg("polyline", { class: "cost", points: points.join(" ") }));
    box.appendChild(svg("text", { x: pad, y: 12 }, "max " + tokens(maxT) + " · $" + maxC.toFixed(4)));
    return box;
  }

  function pending(list) {
    const ul = el("ul", { id: "pending" });
    if (!list.length) ul.appendChild(el("li", { class: "muted" }, "Nothing waits."));
    for (const p of list) {
      const reason = el("input", { type: "text", placeholder: "reason (for deny)", "aria-label": "reason" });
      const card = el("li", { class: "card pending", "data-pending-id": p.id },
        el("div", null, el("strong", null, p.agent), " wants to run ", el("strong", { class: "tool-name" }, p.tool || ""),
          el("span", { class: "badge waiting" }, p.kind)),
        p.reason ? el("div", { class: "muted" }, p.reason) : null);
      if (p.kind === "question") {
        card.appendChild(block(p.arguments, "args", "pending/" + p.id));
        const answer = el("input", { type: "text", placeholder: "your answer", "aria-label": "answer" });
        card.appendChild(el("div", { class: "actions" }, answer,
          el("button", { class: "primary reply", onclick: () => decide(p, { answer: "reply", text: answer.value }) }, "Reply"),
          el("button", { class: "danger deny", onclick: () => decide(p, { answer: "deny", reason: reason.value || "denied" }) }, "Deny"),
          reason));
      } else {
        const args = el("textarea", { "aria-label": "arguments", class: "edit-args" });
        args.value = p.arguments || "";
        card.appendChild(args);
        card.appendChild(el("div", { class: "actions" },
          el("button", { class: "primary approve", onclick: () => decide(p, { answer: "approve" }) }, "Approve"),
          el("button", { class: "edit", onclick: () => decide(p, { answer: "edit", arguments: args.value }) }, "Run with these arguments"),
          reason,
          el("button", { class: "danger deny", onclick: () => decide(p, { answer: "deny", reason: reason.value || "denied" }) }, "Deny")));
      }
      ul.appendChild(card);
    }
    return ul;
  }

  async function decide(p, body) {
    try {
      await api("/api/sessions/" + encodeURIComponent(state.selected) + "/decisions/" + encodeURIComponent(p.id),
        { method: "POST", body });
      state.detail.pending = state.detail.pending.filter(x => x.id !== p.id);
      render();
    } catch (e) {
      notice("Could not answer " + p.id + ": " + e.message);
    }
  }

  async function cancel(runId) {
    try {
      await api("/api/sessions/" + encodeURIComponent(state.selected) + "/cancel", { method: "POST", body: runId ? { run: runId } : {} });
    } catch (e) {
      notice("Could not cancel: " + e.message);
    }
  }

  function tree(runs) {
    const box = el("div", { class: "tree", id: "tree" });
    if (!runs.length) {
      box.appendChild(el("p", { class: "muted" }, "No run yet."));
      return box;
    }
    const ids = new Set(runs.map(r => r.id));
    const children = new Map();
    for (const r of runs) {
      const key = r.parent && ids.has(r.parent) ? r.parent : "";
      if (!children.has(key)) children.set(key, []);
      children.get(key).push(r);
    }
    const list = parent => {
      const ul = el("ul");
      for (const r of children.get(parent) || []) ul.appendChild(runNode(r, list));
      return ul;
    };
    box.appendChild(list(""));
    return box;
  }

  function runNode(r, list) {
    const li = el("li", { class: "run", "data-run-id": r.id, "data-agent": r.agent, "data-state": r.state });
    li.appendChild(el("div", { class: "head" },
      el("span", { class: "agent" }, r.agent),
      el("span", { class: "badge " + r.state }, r.state === "waiting" ? "waiting for a decision" : r.state),
      el("span", { class: "muted sid" }, r.id),
      r.tookMs >= 0 ? el("span", { class: "muted" }, ms(r.tookMs)) : null,
      r.usage && r.usage.total ? el("span", { class: "muted" }, tokens(r.usage.total) + " · " + usd(r.cost)) : null,
      r.state === "running" || r.state === "waiting"
        ? el("button", { class: "danger cancel-run", onclick: () => cancel(r.runId || r.id) }, "Cancel") : null));
    if (r.error) li.appendChild(el("div", { class: "muted" }, r.error));
    const calls = el("ul", { class: "calls" });
    for (const m of r.models) {
      calls.appendChild(el("li", { class: "model" }, "model " + (m.model || "?") + " · " + ms(m.tookMs) + " · in "
        + m.usage.input + " / out " + m.usage.output + " tok · " + usd(m.cost)));
    }
    for (const t of r.tools) {
      const item = el("li", { class: "tool", "data-tool": t.name, "data-call-id": t.id, "data-state": t.state || "" },
        el("div", null, el("strong", null, t.name), el("span", { class: "badge " + (t.state || "") }, t.state || ""),
          t.tookMs !== undefined ? el("span", { class: "muted" }, " " + ms(t.tookMs)) : null),
        el("div", { class: "muted" }, "arguments"), block(t.arguments, "args", r.id + "/" + t.id + "/args"));
      if (t.result !== undefined) {
        item.appendChild(el("div", { class: "muted" }, t.state === "error" ? "error" : "result"));
        item.appendChild(block(t.result, "result", r.id + "/" + t.id + "/result"));
      }
      calls.appendChild(item);
    }
    for (const x of r.retries || []) {
      calls.appendChild(el("li", { class: "retry" }, x.kind === "retry"
        ? "retry: attempt " + x.attempt + " of " + x.maxAttempts + " failed (" + x.error + "); next in " + ms(x.delayMs)
        : "fallback: " + x.from + " → " + x.to + " (" + x.reason + ")"));
    }
    for (const c of r.compactions) {
      calls.appendChild(el("li", { class: "compaction" }, c.strategy + ": " + tokens(c.before) + " → " + tokens(c.after)));
    }
    li.appendChild(calls);
    li.appendChild(list(r.id));
    return li;
  }

  function conversation(messages) {
    const box = el("div", { id: "conversation" });
    if (!messages.length) box.appendChild(el("p", { class: "muted" }, "No messages."));
    for (const m of messages) {
      const item = el("div", { class: "msg " + m.role, "data-message-id": m.id || "" },
        el("div", { class: "meta" }, m.role + (m.sender ? " · " + m.sender : "") + (m.id ? " · " + m.id : "")));
      for (const p of m.parts) {
        const key = (m.id || "") + "/" + m.parts.indexOf(p);
        if (p.kind === "text") item.appendChild(block(p.text, "text", key));
        else if (p.kind === "thinking") item.appendChild(block(p.text, "thinking", key));
        else if (p.kind === "tool_call") item.appendChild(el("div", null, el("div", { class: "muted" }, "calls " + p.name + " (" + p.id + ")"), block(p.arguments, "args", key)));
        else if (p.kind === "tool_result") item.appendChild(el("div", null, el("div", { class: "muted" }, (p.error ? "error of " : "result of ") + p.id), block(p.text, "result", key)));
        else item.appendChild(el("div", { class: "muted" }, p.text || p.kind));
      }
      box.appendChild(item);
    }
    return box;
  }

  // ---- start ----------------------------------------------------------------------------------

  async function start() {
    const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
    if (match) {
      state.token = decodeURIComponent(match[1]);
      sessionStorage.setItem("shelly-console-token", state.token);
      history.replaceState(null, "", location.pathname);
    } else {
      state.token = sessionStorage.getItem("shelly-console-token");
    }
    if (!state.token) {
      notice("This page needs the console's link with its token (…/#token=…), as the console printed it.");
      setStatus("offline");
      return;
    }
    try {
      state.last = await loadSessions();
    } catch (e) {
      setStatus("offline");
      return;
    }
    const first = [...state.sessions.values()].sort((a, b) => (b.lastActivity || "").localeCompare(a.lastActivity || ""))[0];
    if (first) select(first.id);
    stream();
  }

  // For tests and for the curious: cut the event stream (it reconnects and resumes from the last event).
  window.shellyConsole = {
    disconnect() { if (state.controller) state.controller.abort(); },
    pause() { state.stopped = true; if (state.controller) state.controller.abort(); },
    resume() { if (state.stopped) { state.stopped = false; stream(); } }
  };

  document.addEventListener("DOMContentLoaded", start);
})();
