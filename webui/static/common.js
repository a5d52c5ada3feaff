/* Shared by every page: DOM building (text only: user text never goes through innerHTML),
   the PIN kept in localStorage, API calls, the live-update stream, and drawing the state. */
"use strict";

const COLS = "ABCDEFGHIJKLMNO";
const PREMIUM_CLASS = { TW: "tw", DW: "dw", TL: "tl", DL: "dl", "*": "star", ".": "" };
const PREMIUM_LABEL = { TW: "TW", DW: "DW", TL: "TL", DL: "DL", "*": "\u2605", ".": "" };

/** Create an element: el("li", {class: "x", text: "y", data: {k: "v"}}, [children]). */
function el(tag, props, children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = String(value);
    else if (key === "data") for (const [k, v] of Object.entries(value)) node.dataset[k] = v;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children || []) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

function readJson(id) {
  const node = document.getElementById(id);
  return node ? JSON.parse(node.textContent) : null;
}

/* -- the PIN ---------------------------------------------------------------------------- */

const Pin = {
  key: (gameId) => "tilecam-pin-" + gameId,
  get(gameId) { try { return localStorage.getItem(Pin.key(gameId)); } catch (e) { return null; } },
  set(gameId, pin) { try { localStorage.setItem(Pin.key(gameId), pin); } catch (e) { /* private mode */ } },
  forget(gameId) { try { localStorage.removeItem(Pin.key(gameId)); } catch (e) { /* ignore */ } },
};

/** POST (or GET) to the API; resolves to {ok, status, data} and never throws on HTTP errors. */
async function api(path, { method = "POST", body = undefined, pin = undefined, raw = undefined,
                           contentType = undefined } = {}) {
  const headers = { Accept: "application/json" };
  if (pin) headers["X-Game-Pin"] = pin;
  let payload;
  if (raw !== undefined) {
    payload = raw;
    if (contentType) headers["Content-Type"] = contentType;
  } else if (body !== undefined) {
    payload = JSON.stringify(body);
    headers["Content-Type"] = "application/json";
  }
  let response;
  try {
    response = await fetch(path, { method, headers, body: payload, credentials: "same-origin" });
  } catch (err) {
    return { ok: false, status: 0, data: { error: "network", message: "the server cannot be reached" } };
  }
  let data = null;
  try { data = await response.json(); } catch (e) { data = { message: response.statusText }; }
  return { ok: response.ok, status: response.status, data };
}

/* -- live updates ------------------------------------------------------------------------ */

/** Open the game's event stream; onState(state) runs for every new state version. */
function connectLive(gameId, onState) {
  const dot = document.getElementById("conn");
  const source = new EventSource("/api/games/" + encodeURIComponent(gameId) + "/events");
  source.addEventListener("state", (event) => {
    if (dot) { dot.classList.add("live"); dot.classList.remove("down"); }
    onState(JSON.parse(event.data));
  });
  source.addEventListener("error", () => {
    // EventSource reconnects by itself after a dropped connection; the dot says the screen
    // may be behind meanwhile.  It gives up for good when the server answers with an error
    // (its database restarting): then a new stream is opened.
    if (dot) { dot.classList.remove("live"); dot.classList.add("down"); }
    if (source.readyState === EventSource.CLOSED) setTimeout(() => connectLive(gameId, onState), 3000);
  });
  window.tilecamSource = source;
  return source;
}

/* -- drawing ------------------------------------------------------------------------------- */

function isBlank(tile) { return tile !== tile.toUpperCase(); }

function tileNode(tile, state, last) {
  const blank = isBlank(tile);
  const value = blank ? 0 : (state.tileset.values[tile] ?? "");
  return el("span", { class: "tile" + (blank ? " blank" : "") + (last ? " last" : "") },
    [tile.toUpperCase(), el("sub", { text: value })]);
}

/** Redraw only the squares that changed (a full redraw of 225 cells is cheap too, but this
    keeps taps and focus stable on the control page). */
function renderBoard(board, state, premium) {
  if (!board) return;
  const last = new Set(state.last_squares || []);
  for (const cell of board.querySelectorAll(".sq")) {
    const name = cell.dataset.sq;
    const col = COLS.indexOf(name[0]);
    const row = parseInt(name.slice(1), 10) - 1;
    const tile = state.board[row][col];
    const key = tile ? tile + (last.has(name) ? "*" : "") : "";
    if (cell.dataset.k === key) continue;
    cell.dataset.k = key;
    const p = premium[row][col];
    cell.replaceChildren(tile ? tileNode(tile, state, last.has(name))
                              : el("span", { class: "prem", text: PREMIUM_LABEL[p] }));
  }
}

function formatClock(seconds) {
  const sign = seconds < 0 ? "\u2212" : "";
  const s = Math.abs(Math.trunc(seconds));
  return sign + String(Math.floor(s / 60)).padStart(2, "0") + ":" + String(s % 60).padStart(2, "0");
}

const Clock = {
  state: null,
  received: 0,
  update(state) { Clock.state = state.clock; Clock.received = performance.now() / 1000; Clock.draw(); },
  remaining(player) {
    const c = Clock.state;
    let used = c.used[player];
    if (c.running && player === c.turn) used += performance.now() / 1000 - Clock.received;
    return c.limit - used;
  },
  draw() {
    const c = Clock.state;
    if (!c) return;
    for (const node of document.querySelectorAll(".player")) {
      const clock = node.querySelector(".clock");
      if (!clock) continue;
      if (!c.enabled) { clock.textContent = ""; continue; }
      const player = parseInt(node.dataset.player, 10);
      const left = Clock.remaining(player);
      clock.textContent = formatClock(left) + (c.running && player === c.turn ? " \u25B8" : "");
      clock.classList.toggle("overtime", left < 0);
    }
  },
};
setInterval(() => Clock.draw(), 500);

function renderPlayers(container, state) {
  if (!container) return;
  const nodes = container.querySelectorAll(".player");
  state.players.forEach((player, i) => {
    const node = nodes[i];
    if (!node) return;
    node.querySelector(".name").textContent = player.name;
    node.querySelector(".total").textContent = String(player.score);
    node.classList.toggle("on-turn", !state.over && state.turn === i);
    node.classList.toggle("winner", state.over && state.winners.includes(i));
  });
  Clock.update(state);
}

function kindOf(event) { return String(event.kind).toLowerCase(); }

/** One line of text for an event (what the log and the last-move banner say). */
function describeEvent(event) {
  const kind = kindOf(event);
  switch (kind) {
    case "play": return event.play ? event.play.seed : "play";
    case "pass": return "passed";
    case "exchange": return "exchanged " + (event.tiles ?? event.count ?? "");
    case "withdrawn":
      return (event.play ? event.play.words.join(", ") + " " : "") + "withdrawn (challenged off)";
    case "challenge_bonus": return "challenge bonus";
    case "lost_turn": return "lost turn (challenge)";
    case "end_rack_points": return "went out: rack " + (event.tiles ?? "");
    case "end_rack_penalty": return "tiles left: " + (event.tiles ?? "");
    case "time_penalty": return "overtime";
    case "adjustment": return "adjustment" + (event.note ? ": " + event.note : "");
    case "agreed_end": return "game ended by agreement";
    case "resigned": return "resigned";
    case "timed_out": return "lost on time";
    default: return kind + (event.note ? ": " + event.note : "");
  }
}

function signed(n) { return (n > 0 ? "+" : n < 0 ? "\u2212" : "\u00B1") + Math.abs(n); }

function renderLastMove(container, state) {
  if (!container) return;
  const ev = state.last;
  if (!ev) { container.replaceChildren(el("span", { class: "muted", text: "No move yet" })); return; }
  const who = state.players[ev.player]?.name ?? "?";
  const parts = [el("span", { class: "who", text: who + ": " })];
  if (ev.play && kindOf(ev) === "play") {
    parts.push(el("span", { class: "words", text: ev.play.words.join(", ") }));
    parts.push(el("span", { class: "pos", text: " " + ev.play.position }));
    parts.push(el("span", { class: "pts", text: " " + signed(ev.score) }));
    if (ev.play.bingo) parts.push(el("span", { class: "bingo", text: "BINGO" }));
    const verdict = unlisted(ev.play);
    if (verdict) parts.push(verdict);
  } else {
    parts.push(el("span", { class: "words", text: describeEvent(ev) }));
    if (ev.score) parts.push(el("span", { class: "pts", text: " " + signed(ev.score) }));
  }
  if (state.over) {
    const names = state.winners.map((i) => state.players[i].name).join(" & ");
    parts.push(el("div", { class: "final", text: "Game over \u2014 " + (state.winners.length > 1 ? "tie: " : "winner: ") + names }));
  }
  if (state.damaged) parts.push(el("div", { class: "error-message", text: state.damaged }));
  container.replaceChildren(...parts);
}

/* The dictionary's verdict on a play's words: those in no word list, as laid (a name, a
   misspelling, a phony): the players challenge or let them stand. */
function unlisted(play) {
  const words = (play && play.not_in_word_list) || [];
  if (!words.length) return null;
  return el("span", { class: "unlisted", text: "not in the word list: " + words.join(", ") });
}

function renderLog(ol, state) {
  if (!ol) return;
  const items = state.log.slice().reverse().map((ev) => {
    const who = state.players[ev.player]?.name ?? "?";
    return el("li", { class: "ev " + kindOf(ev), value: ev.n + 1 }, [
      el("span", { class: "who", text: who }),
      el("span", { class: "what" }, [describeEvent(ev),
        kindOf(ev) === "play" && ev.play && ev.play.bingo
          ? el("span", { class: "bingo", text: "BINGO" }) : null,
        kindOf(ev) === "play" ? unlisted(ev.play) : null]),
      el("span", { class: "pts", text: signed(ev.score) }),
      el("span", { class: "tot", text: String(ev.total) }),
    ]);
  });
  ol.replaceChildren(...items);
}

function renderUnseen(container, state) {
  const bag = document.getElementById("bag");
  if (bag) bag.textContent = String(state.bag);
  const total = document.getElementById("unseen-total");
  if (total) total.textContent = String(state.unseen_total);
  if (!container) return;
  const groups = Object.entries(state.unseen).map(([tile, n]) =>
    el("span", { class: "u" + (tile === "?" ? " blank" : "") }, [tile.repeat(Math.min(n, 12))]));
  container.replaceChildren(...groups);
}

function renderRules(node, state) {
  if (!node) return;
  const r = state.rules || {};
  const bits = [state.tileset.name + " tiles", "word list " + state.lexicon];
  if (r.challenge) bits.push("challenge: " + r.challenge);
  if (r.rack_size && r.rack_size !== 7) bits.push(r.rack_size + "-tile racks");
  if (r.finish_line) bits.push("finish line " + r.finish_line);
  node.textContent = bits.join(" \u00B7 ");
}

/** Draw everything a scoreboard-like page shows. */
function renderState(state, premium) {
  renderPlayers(document.getElementById("players"), state);
  renderLastMove(document.getElementById("last-move"), state);
  renderBoard(document.getElementById("board"), state, premium);
  renderUnseen(document.getElementById("unseen"), state);
  renderLog(document.getElementById("log"), state);
  renderRules(document.getElementById("rules-line"), state);
  document.body.dataset.version = String(state.version);
}
