/* The list of games: show start times in the reader's own time zone. */
"use strict";
for (const cell of document.querySelectorAll("[data-time]")) {
  const t = parseFloat(cell.dataset.time);
  if (!Number.isNaN(t)) cell.textContent = new Date(t * 1000).toLocaleString();
}
