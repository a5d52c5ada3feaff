/* The scoreboard: draw the state embedded in the page, then every version the stream brings. */
"use strict";

(function () {
  const root = document.getElementById("scoreboard");
  const gameId = root.dataset.game;
  const premium = readJson("premium-layout");
  let version = -1;

  function show(state) {
    if (state.version < version) return;
    version = state.version;
    renderState(state, premium);
    renderQuestionsNotice(state);
  }

  function renderQuestionsNotice(state) {
    const box = document.getElementById("questions");
    if (!box) return;
    const open = state.questions || [];
    box.hidden = open.length === 0;
    box.replaceChildren(...open.map((q) => el("div", { class: "question" }, [
      el("b", { text: "Question: " }),
      q.data.prompt ? String(q.data.prompt)
        : q.kind === "blank_letter"
          ? "which letter is the blank on " + (q.data.squares || []).join(", ") + "?"
          : q.kind.replace(/_/g, " ") + (q.data.squares ? " at " + q.data.squares.join(", ") : ""),
      " (answer on the controls page)",
    ])));
  }

  show(readJson("initial-state"));
  connectLive(gameId, show);
})();
