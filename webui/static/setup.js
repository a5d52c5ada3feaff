/* Setup and import forms: post through the API so the PIN can be remembered for the new game,
   then open its control page (an imported record's warnings are shown first).  Without
   JavaScript the forms post as plain HTML forms. */
"use strict";

(function () {
  const form = document.getElementById("setup-form") || document.getElementById("import-form");
  if (!form) return;
  const message = document.getElementById("message");
  const endpoint = form.id === "setup-form" ? "/api/games" : "/api/games/import";
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    message.textContent = "Working\u2026";
    message.className = "message";
    const pin = document.getElementById("setup-pin").value;
    const result = await api(endpoint, { raw: new FormData(form) });
    if (!result.ok) {
      message.textContent = result.data?.message || "not accepted";
      message.className = "message error-message";
      return;
    }
    Pin.set(result.data.id, pin);
    const gameUrl = "/games/" + encodeURIComponent(result.data.id) + "/control";
    const warnings = result.data.warnings || [];
    const formatWarnings = result.data.format_warnings || [];
    if (!warnings.length && !formatWarnings.length) {
      window.location.href = gameUrl;
      return;
    }
    // The record's warnings are shown here, before the game, as the page does without scripts
    // (templates/import.html).
    const list = (id, items, kind) => el("ul", { id }, items.map((text) => el("li", { class: kind, text })));
    form.replaceWith(el("section", { class: "panel setup", id: "import-result" }, [
      el("h1", { text: "Game imported" }),
      el("p", { text: "The record is stored as a game. Before you open it, here is what the record says that the game does not take as written." }),
      ...(warnings.length ? [
        el("h2", { text: "Where the record disagrees with the rules" }),
        el("p", { class: "muted small", text: "The game keeps the rules' values." }),
        list("import-mismatches", warnings, "bad"),
      ] : []),
      ...(formatWarnings.length ? [
        el("h2", { text: "Harmless faults in how it is written" }),
        el("p", { class: "muted small", text: "Read as meant: they change nothing in the game." }),
        list("import-warnings", formatWarnings),
      ] : []),
      el("div", { class: "buttons" }, [
        el("a", { class: "button primary", href: gameUrl, text: "Open the game" }),
        el("a", { class: "button", href: "/import", text: "Import another record" }),
      ]),
    ]));
  });
})();
