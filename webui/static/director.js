/* The director's page of a club event: one live stream carries every table; each overview
   redraws the standings and the table cards as templates/director.html first drew them. */
"use strict";

(function () {
  const root = document.getElementById("director");
  if (!root) return;
  const eventId = root.dataset.event;
  const premium = readJson("premium-data");
  const status = document.getElementById("live-status");

  function miniBoard(table) {
    const cells = [];
    for (let r = 0; r < 15; r++) {
      for (let c = 0; c < 15; c++) {
        const tile = table.board[r][c];
        const name = COLS[c] + (r + 1);
        if (tile === ".") {
          cells.push(el("span", { class: PREMIUM_CLASS[premium[r][c]] || null }));
        } else {
          let cls = "mt";
          if (isBlank(tile)) cls += " blank";
          if (table.last_squares.includes(name)) cls += " last";
          cells.push(el("span", { class: cls, text: tile.toUpperCase() }));
        }
      }
    }
    return el("div", { class: "mini-board", "aria-label": "Board of " + table.name }, cells);
  }

  function tableStatus(table) {
    if (table.damaged) return el("span", { class: "bad", text: "damaged" });
    if (table.over) return "ended";
    const n = table.questions.length;
    if (n) return el("span", { class: "questions", text: n + " question" + (n === 1 ? "" : "s") + " waiting" });
    return "playing";
  }

  // Each clock as the server read it, and when this page received that reading: the player
  // on turn's clock runs on between overviews, which come only when a game changes.
  const clocks = new Map();

  function clockText(clock, player) {
    let used = clock.used[player];
    if (clock.running && clock.turn === player) {
      used += Math.max(0, Date.now() / 1000 - clock.received);
    }
    const left = clock.limit - used;
    const seconds = Math.abs(Math.round(left));
    return (left < 0 ? "-" : "") + Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0");
  }

  function tickClocks() {
    for (const node of document.querySelectorAll("#tables .clock")) {
      const clock = clocks.get(node.closest("article").dataset.game);
      if (clock) node.textContent = clockText(clock, Number(node.dataset.player));
    }
  }
  setInterval(tickClocks, 1000);

  function card(table) {
    if (table.clock && table.clock.enabled) {
      clocks.set(table.game_id, { ...table.clock, received: Date.now() / 1000 });
    }
    let cls = "table-card";
    if (table.questions.length) cls += " asking";
    if (table.over) cls += " over";
    const players = table.players.map((p, i) => {
      let pcls = "";
      if (table.turn === i) pcls += "on-turn";
      if (table.over && table.winners.includes(i)) pcls += " winner";
      const parts = [el("span", { class: "name", text: p.name })];
      if (table.clock && table.clock.enabled) {
        parts.push(el("span", { class: "clock", data: { player: i }, text: clockText(table.clock, i) }));
      }
      parts.push(el("span", { class: "score", text: p.score }));
      return el("li", { class: pcls.trim() || null }, parts);
    });
    return el("article", { class: cls, data: { game: table.game_id } }, [
      el("header", {}, [
        el("a", { href: "/games/" + encodeURIComponent(table.game_id), text: table.name }),
        el("span", { class: "moves", text: table.moves + (table.moves === 1 ? " event" : " events") }),
      ]),
      miniBoard(table),
      el("ul", { class: "mini-players" }, players),
      el("p", { class: "table-status" }, [tableStatus(table)]),
    ]);
  }

  function standingsRows(standings) {
    if (!standings.length) {
      return [el("tr", { class: "none" }, [
        el("td", { colspan: 5, class: "muted", text: "No game has ended yet." })])];
    }
    return standings.map((row, i) => el("tr", {}, [
      el("td", { text: i + 1 }),
      el("td", { text: row.player }),
      el("td", { text: row.played }),
      el("td", { text: row.wins }),
      el("td", { text: (row.spread > 0 ? "+" : "") + row.spread }),
    ]));
  }

  function render(overview) {
    document.getElementById("event-name").textContent = overview.name;
    document.getElementById("table-count").textContent = overview.tables.length;
    document.querySelector("#standings tbody").replaceChildren(...standingsRows(overview.standings));
    document.getElementById("tables").replaceChildren(...overview.tables.map(card));
    root.dataset.versions = JSON.stringify(overview.versions);
  }

  function connect() {
    const source = new EventSource("/api/events/" + encodeURIComponent(eventId) + "/stream");
    source.addEventListener("overview", (e) => {
      render(JSON.parse(e.data));
      status.textContent = "live";
    });
    source.addEventListener("error", () => {
      status.textContent = "reconnecting…";
      // EventSource retries a dropped connection by itself, but gives up for good when the
      // server answers with an error (its database restarting): then open a new one.
      if (source.readyState === EventSource.CLOSED) setTimeout(connect, 3000);
    });
    window.tilecamDirectorSource = source;
  }
  connect();
})();
