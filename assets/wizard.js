// The /submit wizard's honest save status and its warning before leaving.
//
// Every keystroke in a wizard field gets a stamp (the time of its DOM event); every save the
// page sends carries the stamp of the event that sent it (the last keystroke, or the blur),
// and the server writes back, per field, the newest stamp it has answered. A field is unsaved while its newest
// keystroke is newer than that answer, or while the server refused its text (a pasted key).
// While anything is unsaved the status says "Saving…" and closing or reloading the tab asks
// first. Nothing typed is copied into browser storage: a refused field may hold a secret.
(function () {
  "use strict";
  if (window.benchmaxWizardStamp) {
    return;
  }
  var last = 0;
  var typed = {}; // field name -> stamp of its newest keystroke in this page
  window.benchmaxWizardTyped = typed; // read by the browser tests
  var seen = {}; // field name -> its value at its newest keystroke

  // The stamp of a DOM event is its own time, so this script and the page's handler, which
  // both see one keystroke, give it the same stamp whichever of them runs first.
  window.benchmaxWizardStamp = function (event) {
    if (event && event.timeStamp) {
      return Math.round(performance.timeOrigin + event.timeStamp);
    }
    last = Math.max(Date.now(), last + 1);
    return last;
  };

  function status() {
    return document.getElementById("wizard-saved");
  }

  function pending(box) {
    var answered = {};
    try { answered = JSON.parse(box.getAttribute("data-answered") || "{}"); } catch (ignored) {}
    for (var field in typed) {
      if (typed[field] > (answered[field] || 0)) { return true; }
    }
    return false;
  }

  function ago(stamp) {
    var seconds = Math.max(0, Math.round((Date.now() - stamp) / 1000));
    if (seconds < 2) { return " just now"; }
    if (seconds < 60) { return " " + seconds + " s ago"; }
    return " " + Math.round(seconds / 60) + " min ago";
  }

  function update() {
    var box = status();
    if (!box) {
      delete document.body.dataset.wizardPending;
      return;
    }
    var waiting = pending(box);
    if (waiting) {
      document.body.dataset.wizardPending = "1";
    } else {
      delete document.body.dataset.wizardPending;
    }
    // While a keystroke is on its way, "Saving…" replaces the server's last answer.
    var local = document.getElementById("wizard-save-local");
    if (local) { local.textContent = waiting ? "Saving…" : ""; }
    var server = document.getElementById("wizard-save-server");
    if (server) { server.style.display = waiting ? "none" : ""; }
    var age = box.querySelector(".saved-ago");
    var stamp = Number(box.getAttribute("data-saved-stamp")) || 0;
    if (age) {
      // A stamp of 1 marks a save sent without one (Next): said without an age.
      var text = box.getAttribute("data-state") === "saved" && stamp > 1 ? ago(stamp) : "";
      if (age.textContent !== text) { age.textContent = text; }
    }
  }

  function unsaved() {
    var box = status();
    return !!box && (pending(box) || box.getAttribute("data-refused") === "1");
  }

  // Capture on the window runs before the page's own handlers, so a save triggered by this
  // very keystroke already reads a stamp at least as new as it.
  window.addEventListener("input", function (event) {
    var target = event.target;
    // Only the wizard's own text fields (id "field-…"); a file picker is not typed text.
    var own = target && target.name && target.id && target.id.indexOf("field-") === 0;
    if (own && target.closest && target.closest("#wizard-form")) {
      // An input event that leaves the value as it was (a browser or tool may send one
      // after the real change) is no keystroke: the page's handler ignores it, so must this.
      if (seen[target.name] === target.value) { return; }
      seen[target.name] = target.value;
      typed[target.name] = window.benchmaxWizardStamp(event);
      update();
    }
  }, true);

  window.addEventListener("beforeunload", function (event) {
    if (unsaved()) {
      event.preventDefault();
      event.returnValue = "";
      // The page's own handler drops its connection to the server as the tab starts to
      // leave. If the contributor chooses to stay, this timer runs once the question is
      // answered and asks the page to reconnect (it does so when it becomes visible), so
      // the waiting save goes through.
      setTimeout(function () { document.dispatchEvent(new Event("visibilitychange")); }, 50);
    }
  });

  new MutationObserver(update).observe(document.documentElement, {
    subtree: true,
    attributes: true,
    attributeFilter: ["data-answered", "data-saved-stamp", "data-state", "data-refused"],
  });
  setInterval(update, 500);
})();
