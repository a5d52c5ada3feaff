/* Camera preview and calibration: the newest frame with the grid drawn over it on a canvas,
   and (calibration page) taps that mark the grid's four corners. */
"use strict";

(function () {
  const root = document.getElementById("camera") || document.getElementById("calibrate");
  const gameId = root.dataset.game;
  const base = "/api/games/" + encodeURIComponent(gameId);
  const img = document.getElementById("frame");
  const canvas = document.getElementById("overlay");
  const status = document.getElementById("frame-status");
  const message = document.getElementById("message");
  const calibrating = root.id === "calibrate";
  let grid = null;
  let taps = [];

  /** The projective map from the unit square onto a quadrilateral (corners in the order
      (0,0), (1,0), (1,1), (0,1)): Heckbert's closed form of the square-to-quad homography. */
  function squareToQuad(p) {
    const [[x0, y0], [x1, y1], [x2, y2], [x3, y3]] = p;
    const dx1 = x1 - x2, dx2 = x3 - x2, dy1 = y1 - y2, dy2 = y3 - y2;
    const sx = x0 - x1 + x2 - x3, sy = y0 - y1 + y2 - y3;
    let g = 0, h = 0;
    if (sx !== 0 || sy !== 0) {
      const den = dx1 * dy2 - dx2 * dy1;
      g = (sx * dy2 - dx2 * sy) / den;
      h = (dx1 * sy - sx * dy1) / den;
    }
    const a = x1 - x0 + g * x1, b = x3 - x0 + h * x3, d = y1 - y0 + g * y1, e = y3 - y0 + h * y3;
    return (u, v) => {
      const w = g * u + h * v + 1;
      return [(a * u + b * v + x0) / w, (d * u + e * v + y0) / w];
    };
  }

  function draw() {
    if (!img.naturalWidth) return;
    canvas.width = img.clientWidth;
    canvas.height = img.clientHeight;
    const ctx = canvas.getContext("2d");
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    const sx = img.clientWidth / img.naturalWidth, sy = img.clientHeight / img.naturalHeight;
    const corners = calibrating && taps.length ? taps : grid?.corners;
    if (!corners) return;
    const scaleX = grid && !calibrating ? img.naturalWidth / grid.width * sx : sx;
    const scaleY = grid && !calibrating ? img.naturalHeight / grid.height * sy : sy;
    const pts = corners.map(([x, y]) => [x * scaleX, y * scaleY]);
    ctx.lineWidth = 2;
    ctx.strokeStyle = "#00e5ff";
    ctx.fillStyle = "#ff3d7f";
    for (const [x, y] of pts) { ctx.beginPath(); ctx.arc(x, y, 6, 0, 2 * Math.PI); ctx.fill(); }
    if (pts.length < 4) return;
    const map = squareToQuad(pts);
    ctx.beginPath();
    for (let i = 0; i <= 15; i++) {
      const t = i / 15;
      let [x, y] = map(t, 0); ctx.moveTo(x, y); [x, y] = map(t, 1); ctx.lineTo(x, y);
      [x, y] = map(0, t); ctx.moveTo(x, y); [x, y] = map(1, t); ctx.lineTo(x, y);
    }
    ctx.stroke();
  }

  async function refresh() {
    const probe = new Image();
    probe.onload = () => {
      img.src = probe.src;
      if (status) status.textContent = "Updated " + new Date().toLocaleTimeString() + ".";
    };
    probe.onerror = () => { if (status) status.textContent = "No frame yet: start a camera."; };
    probe.src = base + "/frame.jpg?t=" + Date.now();
    const result = await api(base + "/grid", { method: "GET" });
    if (result.ok) grid = result.data.grid;
    draw();
  }

  img.addEventListener("load", draw);
  window.addEventListener("resize", draw);
  refresh();
  setInterval(refresh, calibrating ? 3000 : 1000);

  if (!calibrating) return;

  function say(text, kind) {
    message.textContent = text;
    message.className = "message" + (kind ? " " + kind : "");
  }

  function pin() {
    let value = Pin.get(gameId);
    if (!value) {
      value = window.prompt("The game's PIN");
      if (value) Pin.set(gameId, value);
    }
    return value;
  }

  async function post(path, body) {
    const result = await api(base + path, { body, pin: pin() });
    if (result.status === 403) Pin.forget(gameId);
    say(result.ok ? "Saved." : (result.data?.message || "not accepted"), result.ok ? "ok" : "error-message");
    return result.ok;
  }

  const saveButton = document.getElementById("corners-save");
  canvas.addEventListener("click", (event) => {
    if (taps.length >= 4 || !img.naturalWidth) return;
    const rect = canvas.getBoundingClientRect();
    const x = (event.clientX - rect.left) * img.naturalWidth / rect.width;
    const y = (event.clientY - rect.top) * img.naturalHeight / rect.height;
    taps.push([Math.round(x), Math.round(y)]);
    saveButton.disabled = taps.length !== 4;
    draw();
  });
  document.getElementById("corners-reset").addEventListener("click", () => {
    taps = []; saveButton.disabled = true; draw();
  });
  saveButton.addEventListener("click", () => post("/calibration/corners", {
    corners: taps, width: img.naturalWidth, height: img.naturalHeight,
  }));
  document.getElementById("capture-empty").addEventListener("click", () => post("/calibration/empty", {}));
  const layout = document.getElementById("layout");
  if (!layout.value) layout.value = Array(15).fill(".".repeat(15)).join("\n");
  document.getElementById("capture-layout").addEventListener("click", () =>
    post("/calibration/layout", { rows: layout.value.split(/\r?\n/).filter((r) => r.trim()) }));
})();
