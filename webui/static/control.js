/* The scorekeeper's page: every control posts to the JSON API with the game's PIN. */
"use strict";

(function () {
  const root = document.getElementById("control");
  const gameId = root.dataset.game;
  const base = "/api/games/" + encodeURIComponent(gameId);
  const premium = readJson("premium-layout");
  const message = document.getElementById("message");
  let state = readJson("initial-state");
  let version = -1;

  function say(text, kind) {
    message.textContent = text;
    message.className = "message" + (kind ? " " + kind : "");
  }

  /* -- PIN ---------------------------------------------------------------------------- */

  const pinForm = document.getElementById("pin-form");
  const pinInput = document.getElementById("pin-input");
  const pinStatus = document.getElementById("pin-status");
  const pinForget = document.getElementById("pin-forget");

  function showPinState() {
    const known = Boolean(Pin.get(gameId));
    pinInput.hidden = known;
    pinForm.querySelector("button[type=submit]").hidden = known;
    pinForget.hidden = !known;
    pinStatus.textContent = known ? "Unlocked on this device." : "Changes need the PIN set at the start of the game.";
    root.classList.toggle("locked", !known);
  }

  pinForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const pin = pinInput.value;
    const result = await api(base + "/pin", { body: {}, pin });
    if (result.ok) {
      Pin.set(gameId, pin);
      pinInput.value = "";
      say("Unlocked.", "ok");
    } else {
      say(result.data?.message || "not accepted", "error-message");
    }
    showPinState();
  });
  pinForget.addEventListener("click", () => { Pin.forget(gameId); showPinState(); });

  /** Post an action; shows the server's message and returns the reply (or null on error). */
  async function act(action, body) {
    const pin = Pin.get(gameId);
    if (!pin) {
      say("Enter the game's PIN first.", "error-message");
      pinInput.focus();
      return null;
    }
    const result = await api(base + "/" + action, { body: body || {}, pin });
    if (result.status === 403) {
      Pin.forget(gameId);
      showPinState();
    }
    if (!result.ok) {
      say(result.data?.message || "not accepted", "error-message");
      return null;
    }
    if (result.data.state) show(result.data.state);
    return result.data;
  }

  /* -- drawing ------------------------------------------------------------------------- */

  function show(next) {
    if (next.version < version) return;
    version = next.version;
    state = next;
    renderState(state, premium);
    renderQuestions();
    document.getElementById("undo-button").disabled = !state.can_undo;
    const endButton = document.getElementById("end-button");
    endButton.disabled = !state.over || state.racks_settled;
    renderHistory();
    document.getElementById("end-status").textContent = !state.over
      ? "The game is not over yet."
      : state.racks_settled ? "The game is over and the racks are counted."
        : "Game over (" + state.end_reason + "): count the racks.";
  }

  /** The changes made to past events: what, who and when (and whether undone since). */
  function renderHistory() {
    const list = document.getElementById("history");
    const changes = (state.history || []).slice().reverse();
    if (!changes.length) {
      list.replaceChildren(el("li", { class: "muted", text: "None." }));
      return;
    }
    list.replaceChildren(...changes.map((c) => el("li", { class: c.undone ? "undone" : "" }, [
      el("span", { class: "what", text: c.what + (c.undone ? " (undone)" : "") }),
      el("span", { class: "muted small", text: " \u2014 " + (c.by || c.client || "someone") + ", "
        + new Date(c.at * 1000).toLocaleString() }),
    ])));
  }

  function renderQuestions() {
    const box = document.getElementById("questions");
    const open = state.questions || [];
    if (!open.length) {
      box.replaceChildren(el("p", { class: "muted", text: "None open." }));
      return;
    }
    box.replaceChildren(...open.map((q) => {
      const squares = (q.data.squares || []).join(", ");
      const title = q.data.prompt ? String(q.data.prompt)
        : q.kind === "blank_letter" ? "Which letter is the blank on " + squares + "?"
          : q.kind.replace(/_/g, " ") + (squares ? " at " + squares : "");
      const details = [];
      if (q.data.words && q.data.words.length) details.push("words: " + q.data.words.join(", "));
      if (q.data.message) details.push(String(q.data.message));
      const input = el("input", { size: 6, maxlength: 20, "aria-label": "answer", autocapitalize: "characters" });
      const answer = async (value) => {
        const reply = await act("questions/" + q.qid + "/answer", { answer: value });
        if (reply) say("Answered: " + value, "ok");
      };
      const buttons = q.options.map((opt) => el("button", { type: "button", text: opt, onclick: () => answer(opt) }));
      const freeForm = q.data.strict && q.options.length ? null
        : el("span", {}, [input, el("button", { type: "button", text: "Answer", onclick: () => input.value && answer(input.value) })]);
      return el("div", { class: "question", data: { qid: q.qid } }, [
        el("div", { class: "q-title", text: title }),
        details.length ? el("div", { class: "muted small", text: details.join(" \u00B7 ") }) : null,
        el("div", { class: "buttons" }, [...buttons, freeForm]),
      ]);
    }));
  }

  /* -- board taps: choose where a word starts --------------------------------------- */

  const positionInput = document.getElementById("play-position");
  document.getElementById("board").addEventListener("click", (event) => {
    const cell = event.target.closest(".sq");
    if (!cell) return;
    const name = cell.dataset.sq;
    const col = name[0];
    const row = name.slice(1);
    const across = row + col;
    const down = col + row;
    positionInput.value = positionInput.value.toUpperCase() === across ? down : across;
    document.getElementById("correct-square").value = name;
    // A tile already there: offer it for correction; a blank ticks "it is a blank" so that
    // naming the blank's letter is one step.
    const tile = cell.querySelector(".tile");
    if (tile) {
      document.getElementById("correct-letter").value = tile.firstChild.textContent;
      document.getElementById("correct-blank").checked = tile.classList.contains("blank");
    }
    for (const c of document.querySelectorAll(".sq.picked")) c.classList.remove("picked");
    cell.classList.add("picked");
    document.getElementById("play-word").focus();
  });

  /* -- forms ----------------------------------------------------------------------------- */

  const playForm = document.getElementById("play-form");
  playForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = {
      position: positionInput.value.trim(),
      word: document.getElementById("play-word").value.trim(),
    };
    const rack = document.getElementById("play-rack").value.trim();
    if (rack) body.rack = rack;
    const reply = await act("play", body);
    if (reply) {
      say("Played " + (reply.state.last?.play?.seed ?? ""), "ok");
      playForm.reset();
      document.getElementById("play-check").replaceChildren();
    }
  });

  document.getElementById("check-play").addEventListener("click", async () => {
    const params = new URLSearchParams({
      position: positionInput.value.trim(), word: document.getElementById("play-word").value.trim(),
    });
    const result = await api(base + "/check-play?" + params, { method: "GET" });
    const out = document.getElementById("play-check");
    if (!result.ok) {
      out.replaceChildren(el("span", { class: "error-message", text: result.data?.message || "cannot check" }));
      return;
    }
    const d = result.data;
    out.replaceChildren(
      el("div", { text: d.seed + (d.bingo ? " (bingo)" : "") }),
      el("ul", { class: "words" }, d.words.map((w) =>
        el("li", { class: w.valid ? "ok" : "bad" }, [
          el("span", { class: "word", text: w.word }),
          " " + (w.valid ? "\u2713 valid" : "\u2717 not in " + d.lexicon) + " (" + w.score + ")",
        ]))),
    );
  });

  document.getElementById("pass-button").addEventListener("click", async () => {
    if (await act("pass")) say("Passed.", "ok");
  });

  document.getElementById("undo-button").addEventListener("click", async () => {
    const reply = await act("undo");
    if (reply) say("Undone: " + (reply.undone?.op ?? "last action"), "ok");
  });

  document.getElementById("challenge-button").addEventListener("click", async () => {
    const body = {};
    const who = document.getElementById("challenger");
    if (who) body.challenger = parseInt(who.value, 10);
    const reply = await act("challenge", body);
    const out = document.getElementById("challenge-result");
    if (!reply) { out.replaceChildren(); return; }
    const c = reply.challenge;
    const verdict = c.valid ? "The play stands." : "Not valid: the tiles go back, 0 points.";
    const applied = c.valid ? {
      double: "Double rule: the challenger loses the next turn.",
      single: "Single rule: no penalty.",
      five: "5-point rule: bonus to the player.",
      ten: "10-point rule: bonus to the player.",
    }[c.rule] || ("Rule: " + c.rule) : "";
    out.replaceChildren(
      el("ul", { class: "words" }, c.words.map(([word, ok]) =>
        el("li", { class: ok ? "ok" : "bad" }, [el("span", { class: "word", text: word }),
          ok ? " \u2713 valid" : " \u2717 not valid"]))),
      el("p", { class: c.valid ? "ok" : "bad", text: verdict + " " + applied }),
    );
    say("Challenge decided.", "ok");
  });

  document.getElementById("exchange-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = document.getElementById("exchange-tiles").value.trim();
    const tiles = /^\d+$/.test(text) ? parseInt(text, 10) : text;
    if (await act("exchange", { tiles })) {
      say("Exchanged.", "ok");
      event.target.reset();
    }
  });

  document.getElementById("correct-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    let letter = document.getElementById("correct-letter").value.trim();
    letter = document.getElementById("correct-blank").checked ? letter.toLowerCase() : letter.toUpperCase();
    const square = document.getElementById("correct-square").value.trim().toUpperCase();
    if (await act("correct", { square, letter })) {
      say("Corrected " + square + " and rescored.", "ok");
      event.target.reset();
    }
  });

  const rackBox = document.getElementById("end-racks");
  document.getElementById("end-button").addEventListener("click", async () => {
    const body = {};
    if (!rackBox.hidden) {
      body.racks = {};
      for (const input of rackBox.querySelectorAll("input[data-rack-player]")) {
        if (input.value.trim()) body.racks[input.dataset.rackPlayer] = input.value.trim();
      }
    }
    const pin = Pin.get(gameId);
    if (!pin) { say("Enter the game's PIN first.", "error-message"); return; }
    const result = await api(base + "/end", { body, pin });
    if (result.ok) {
      show(result.data.state);
      rackBox.hidden = true;
      say("Game over: rack values counted.", "ok");
      return;
    }
    if (result.status === 422) {
      // The unseen tiles do not decide every rack: ask for the ones that are needed.
      rackBox.hidden = false;
    }
    say(result.data?.message || "not accepted", "error-message");
  });

  /* -- ending now: agreement, resignation, time ------------------------------------- */

  document.getElementById("agree-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const racks = {};
    for (const input of event.target.querySelectorAll("input[data-agree-player]")) {
      racks[input.dataset.agreePlayer] = input.value.trim();
    }
    if (await act("end-by-agreement", { racks })) {
      say("Game ended by agreement: each player's tiles deducted.", "ok");
      event.target.reset();
    }
  });
  const concedePlayer = () => parseInt(document.getElementById("concede-player").value, 10);
  document.getElementById("resign-button").addEventListener("click", async () => {
    if (await act("resign", { player: concedePlayer() })) say("Resigned: game over.", "ok");
  });
  document.getElementById("timeout-button").addEventListener("click", async () => {
    if (await act("time-out", { player: concedePlayer() })) say("Lost on time: game over.", "ok");
  });

  /* -- changing a past event ------------------------------------------------------------ */

  const editFields = ["position", "word", "rack", "tiles", "count", "score", "note"];
  const field = (name) => document.getElementById("edit-" + name);

  /** Fill the edit form with event number n (1-based, as the list shows it). */
  function pickEvent(n) {
    const ev = state.log[n - 1];
    if (!ev) return;
    field("number").value = n;
    field("change").value = "replace";
    field("kind").value = kindOf(ev);
    field("player").value = String(ev.player);
    for (const name of editFields) field(name).value = "";
    if (ev.play && kindOf(ev) === "play") {
      field("position").value = ev.play.position;
      field("word").value = ev.play.word;
    }
    if (ev.rack) field("rack").value = ev.rack;
    if (ev.tiles && kindOf(ev) !== "withdrawn") field("tiles").value = ev.tiles;
    if (kindOf(ev) === "exchange" && !ev.tiles) field("count").value = ev.count;
    if (kindOf(ev) === "time_penalty" && ev.count) field("count").value = ev.count;
    if (["adjustment", "challenge_bonus", "time_penalty", "end_rack_penalty",
         "end_rack_points"].includes(kindOf(ev))) field("score").value = ev.score;
    if (ev.note) field("note").value = ev.note;
    field("word").focus();
  }

  document.getElementById("log").addEventListener("click", (event) => {
    const item = event.target.closest("li");
    if (item) pickEvent(parseInt(item.value, 10));
  });

  document.getElementById("edit-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const change = field("change").value;
    const body = { change, number: parseInt(field("number").value, 10) };
    const by = field("by").value.trim();
    if (by) body.by = by;
    if (change !== "delete") {
      const ev = { kind: field("kind").value };
      if (field("player").value !== "") ev.player = parseInt(field("player").value, 10);
      for (const name of editFields) {
        const value = field(name).value.trim();
        if (!value) continue;
        ev[name] = ["count", "score"].includes(name) ? parseInt(value, 10) : value;
      }
      body.event = ev;
    }
    const reply = await act("edit", body);
    if (reply) say("Changed: " + reply.edited, "ok");
  });

  document.getElementById("clock-start").addEventListener("click", async () => {
    if (await act("clock", { action: "start" })) say("Clocks running.", "ok");
  });
  document.getElementById("clock-pause").addEventListener("click", async () => {
    if (await act("clock", { action: "pause" })) say("Clocks paused.", "ok");
  });

  document.getElementById("adjust-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(event.target);
    const body = { player: parseInt(data.get("player"), 10), points: parseInt(data.get("points"), 10),
                   reason: data.get("reason") };
    if (await act("adjust", body)) say("Score adjusted.", "ok");
  });

  showPinState();
  show(state);
  connectLive(gameId, show);
})();
