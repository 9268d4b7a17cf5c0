/* Inlined into every page's <head> by the HTML step (benchmax/first_paint/middleware.py). */
(function () {
  "use strict";
  var TEXT_PREVIEW_BYTES = 65536;

  /* The feed's "how it works" strip stays out of the first paint once it was dismissed. */
  try {
    if (localStorage.getItem("benchmax-how-hidden")) {
      document.documentElement.setAttribute("data-bm-how-hidden", "");
    }
  } catch (e) { /* storage blocked: the strip shows, as the page will show it */ }

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

  /* The server's first view stays over the page until the page shows its own content. React
     renders the whole document when it starts (taking the view out of the body), which is
     before the page's data has arrived, so the view is put back until then — in the same
     task, before the next frame is painted. Leaving the address drops it too. */
  var firstView = null, firstPath = location.pathname;
  function pageReady() {
    return location.pathname !== firstPath || (document.querySelector("#main") &&
      !document.querySelector("#main .rt-Spinner, #feed-loading"));
  }
  function keepFirstView() {
    firstView = firstView || document.getElementById("bm-first-paint");
    if (!firstView || document.readyState === "loading") return;  /* still arriving */
    if (pageReady()) {
      firstView.remove();
      firstView = null;
      firstPath = null;
    } else if (!firstView.isConnected && document.body) {
      document.body.insertBefore(firstView, document.body.firstChild);
    }
  }

  function scan() {
    if (firstPath !== null) keepFirstView();
    dropServerTitle();
    var pending = document.querySelectorAll("pre.evidence-text[data-src]:not([data-state])");
    for (var i = 0; i < pending.length; i++) loadText(pending[i]);
  }

  new MutationObserver(scan).observe(document.documentElement, { childList: true, subtree: true });
  document.addEventListener("DOMContentLoaded", scan);
})();
