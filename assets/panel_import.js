// The wizard's "Import a panel reply": a chosen file is read here into the paste box, so one
// Import button sends either. A reply over the box's data-limit (the server's own cap) is not
// sent at all, only its size, so the page can say it is too large instead of the live
// connection dropping a message it cannot carry.
(function () {
  "use strict";
  if (window.benchmaxPanelReply) {
    return;
  }
  function box() {
    return document.getElementById("panel-paste");
  }
  function limit(el) {
    return Number(el.getAttribute("data-limit")) || 0;
  }
  document.addEventListener("change", function (event) {
    var input = event.target;
    var el = box();
    if (!el || !input || input.id !== "panel-file" || !input.files || !input.files[0]) {
      return;
    }
    var file = input.files[0];
    var done = function () {
      var button = document.getElementById("panel-import");
      if (button) { button.click(); }
    };
    if (file.size > limit(el)) {
      el.value = "";
      el.setAttribute("data-oversized", String(file.size));
      done();
      return;
    }
    file.text().then(function (text) {
      el.value = text;
      el.removeAttribute("data-oversized");
      done();
    });
  });
  document.addEventListener("input", function (event) {
    if (event.target && event.target.id === "panel-paste") {
      event.target.removeAttribute("data-oversized");
    }
  });
  window.benchmaxPanelReply = function () {
    var el = box();
    if (!el) {
      return { text: "", size: 0 };
    }
    var size = Number(el.getAttribute("data-oversized")) || new Blob([el.value]).size;
    return size > limit(el) ? { text: "", size: size } : { text: el.value, size: 0 };
  };
})();
