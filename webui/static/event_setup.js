/* The club event's setup form (templates/event_setup.html): tables are added and removed in the
   page, as the form's own buttons do through the server without scripts.  Rows are numbered
   in page order, which is how the server names a refused table ("table 3: ..."). */
"use strict";

(function () {
  const form = document.getElementById("event-form");
  const list = document.getElementById("table-rows");
  if (!form || !list) return;
  const addButton = document.getElementById("add-table");
  const maxTables = parseInt(list.dataset.max, 10) || 60;
  const DEFAULT_NAME = /^Table \d+$/;

  function rows() { return Array.from(list.querySelectorAll(".table-row")); }

  /** A four-digit PIN no other row has: one table's PIN must not open another's game. */
  function freshPin() {
    const taken = new Set(rows().map((row) => row.querySelector("[name$='-pin']").value.trim()));
    const random = new Uint32Array(1);
    for (;;) {
      crypto.getRandomValues(random);
      const pin = String(random[0] % 10000).padStart(4, "0");
      if (!taken.has(pin)) return pin;
    }
  }

  /** Field names, labels and default names follow each row's place. */
  function renumber() {
    const all = rows();
    all.forEach((row, index) => {
      const n = index + 1;
      row.dataset.number = String(n);
      for (const input of row.querySelectorAll("input")) {
        input.name = input.name.replace(/^table-\d+-/, "table-" + n + "-");
      }
      const name = row.querySelector("[name$='-name']");
      if (DEFAULT_NAME.test(name.value.trim())) name.value = "Table " + n;
      row.querySelector(".players").setAttribute("aria-label", "Players of table " + n);
      const remove = row.querySelector(".remove-row");
      remove.value = "remove-" + n;
      remove.setAttribute("aria-label", "Remove table " + n);
      remove.disabled = all.length === 1;
    });
    addButton.disabled = all.length >= maxTables;
  }

  function addRow() {
    const last = rows().at(-1);
    const row = last.cloneNode(true);
    row.classList.remove("refused");
    for (const message of row.querySelectorAll(".field-error")) message.remove();
    for (const input of row.querySelectorAll("input")) {
      input.value = "";
      input.removeAttribute("aria-invalid");
      input.removeAttribute("aria-describedby");
      input.removeAttribute("autofocus");
    }
    row.querySelector("[name$='-name']").value = "Table 0";  // a default name: renumbered
    row.querySelector("[name$='-pin']").value = freshPin();
    list.append(row);
    renumber();
    row.querySelector("[name$='-player']").focus();
  }

  form.addEventListener("click", (event) => {
    const button = event.target.closest("button[name=rows]");
    if (!button) return;
    event.preventDefault();
    if (button.value === "add") {
      if (rows().length < maxTables) addRow();
      return;
    }
    if (rows().length > 1) {
      const row = button.closest(".table-row");
      const next = row.nextElementSibling || row.previousElementSibling;
      row.remove();
      renumber();
      next.querySelector("[name$='-player']").focus();
    }
  });
})();
