/* Inlined into every page's <head> by the HTML step (benchmax/api/first_paint.py). */
(function () {
  "use strict";
  var TEXT_PREVIEW_BYTES = 65536;

  /* The server's tab title stands until the page renders its own. */
  function dropServerTitle() {
    var server = document.querySelector("title[data-first-paint]");
    if (server && document.querySelectorAll("title").length > 1) server.remove();
  }

  /* Copy buttons on fenced code (the Markdown is server-rendered, so no React handler). */
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest(".copy-code");
    if (!button) return;
    var block = button.closest(".code-block");
    var code = block && block.querySelector("pre");
    if (!code || !navigator.clipboard) return;
    navigator.clipboard.writeText(code.innerText).then(function () {
      button.textContent = "Copied";
      setTimeout(function () { button.textContent = "Copy"; }, 1500);
    });
  });

  /* Text evidence: the browser reads the first part straight from the user-content origin,
     without cookies; this app never touches the bytes. */
  function loadText(pre) {
    pre.setAttribute("data-state", "loading");
    var note = document.getElementById(pre.id + "-note");
    fetch(pre.getAttribute("data-src"), {
      credentials: "omit", mode: "cors", referrerPolicy: "no-referrer", cache: "no-cache"
    }).then(function (response) {
      if (!response.ok || !response.body) throw new Error("status " + response.status);
      var reader = response.body.getReader();
      var chunks = [], received = 0;
      function pump() {
        return reader.read().then(function (step) {
          if (step.done) return false;
          chunks.push(step.value);
          received += step.value.length;
          if (received >= TEXT_PREVIEW_BYTES) { reader.cancel(); return true; }
          return pump();
        });
      }
      return pump().then(function (cut) {
        var all = new Uint8Array(received), offset = 0;
        chunks.forEach(function (c) { all.set(c, offset); offset += c.length; });
        var text = new TextDecoder("utf-8").decode(all.subarray(0, TEXT_PREVIEW_BYTES));
        pre.textContent = text;
        pre.setAttribute("data-state", cut ? "partial" : "complete");
        if (note) note.textContent = cut ? "Showing the first 64 KB; download the file for the rest." : "";
      });
    }).catch(function () {
      pre.setAttribute("data-state", "failed");
      pre.textContent = "";
      if (note) note.textContent = "This file could not be shown here; use the download link.";
    });
  }

  function scan() {
    dropServerTitle();
    var pending = document.querySelectorAll("pre.evidence-text[data-src]:not([data-state])");
    for (var i = 0; i < pending.length; i++) loadText(pending[i]);
  }

  new MutationObserver(scan).observe(document.documentElement, { childList: true, subtree: true });
  document.addEventListener("DOMContentLoaded", scan);
})();
