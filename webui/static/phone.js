/* A phone's own camera as the frame source: frames go to the server as JPEG. */
"use strict";

(function () {
  const root = document.getElementById("phone");
  const gameId = root.dataset.game;
  const url = "/api/games/" + encodeURIComponent(gameId) + "/frames";
  const video = document.getElementById("video");
  const status = document.getElementById("phone-status");
  const startButton = document.getElementById("start-camera");
  const stopButton = document.getElementById("stop-camera");
  const canvas = document.createElement("canvas");
  let stream = null, timer = null, busy = false, sent = 0, failed = 0;

  if (!window.isSecureContext || !navigator.mediaDevices?.getUserMedia) {
    document.getElementById("secure-warning").hidden = false;
    startButton.disabled = true;
  }

  function pin() {
    let value = Pin.get(gameId);
    if (!value) {
      value = window.prompt("The game's PIN");
      if (value) Pin.set(gameId, value);
    }
    return value;
  }

  async function sendFrame() {
    if (busy || !video.videoWidth) return;
    busy = true;
    // At most 1280 px wide: enough for 15x15 letters, small enough for the 1 MB frame limit.
    const scale = Math.min(1, 1280 / video.videoWidth);
    canvas.width = Math.round(video.videoWidth * scale);
    canvas.height = Math.round(video.videoHeight * scale);
    canvas.getContext("2d").drawImage(video, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.8));
    const result = await api(url, { raw: blob, contentType: "image/jpeg", pin: pin() });
    if (result.ok) sent += 1; else failed += 1;
    if (result.status === 403) { Pin.forget(gameId); stop(); }
    status.textContent = "Frames sent: " + sent + (failed ? ", refused: " + failed + " (" + (result.data?.message || "") + ")" : "")
      + pipelineText(result.data?.pipeline);
    busy = false;
  }

  /* What the server's camera pipeline for this game says (a club server runs one per table). */
  function pipelineText(pipeline) {
    if (!pipeline) return "";
    let text = " · camera pipeline: " + pipeline.state;
    if (pipeline.board === "found") text += ", board in view";
    else if (pipeline.board === "lost") text += ", no board in the picture: get the whole board in view";
    if (pipeline.moves) text += ", " + pipeline.moves + (pipeline.moves === 1 ? " move" : " moves");
    if (pipeline.message) text += " (" + pipeline.message + ")";
    return text;
  }

  async function start() {
    try {
      stream = await navigator.mediaDevices.getUserMedia({
        video: { facingMode: "environment", width: { ideal: 1920 }, height: { ideal: 1080 } }, audio: false,
      });
    } catch (err) {
      status.textContent = "The camera could not be opened: " + err.message;
      return;
    }
    video.srcObject = stream;
    await video.play();
    startButton.disabled = true;
    stopButton.disabled = false;
    const fps = parseInt(document.getElementById("fps").value, 10);
    timer = setInterval(sendFrame, 1000 / fps);
  }

  function stop() {
    clearInterval(timer);
    if (stream) for (const track of stream.getTracks()) track.stop();
    stream = null;
    startButton.disabled = false;
    stopButton.disabled = true;
  }

  startButton.addEventListener("click", start);
  stopButton.addEventListener("click", stop);
})();
