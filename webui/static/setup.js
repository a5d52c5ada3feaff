/* Setup and import forms: post through the API so the PIN can be remembered for the new game,
   then open its control page.  Without JavaScript the forms post as plain HTML forms. */
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
    const warnings = result.data.warnings || [];
    if (warnings.length) {
      try { sessionStorage.setItem("tilecam-import-warnings", JSON.stringify(warnings)); } catch (e) { /* ignore */ }
    }
    window.location.href = "/games/" + encodeURIComponent(result.data.id) + "/control";
  });
})();
