// Keeps a live page current without a server-side loop: every element with a
// data-autorefresh-ms attribute (a Refresh button) is clicked that often while the tab is
// visible. Closing the tab, hiding it or leaving the page stops the refreshing by itself.
(function () {
  "use strict";
  if (window.benchmaxAutorefresh) {
    return;
  }
  window.benchmaxAutorefresh = true;
  var lastClicked = new WeakMap();

  setInterval(function () {
    if (document.visibilityState !== "visible") {
      return;
    }
    var now = Date.now();
    document.querySelectorAll("[data-autorefresh-ms]").forEach(function (button) {
      var every = Number(button.getAttribute("data-autorefresh-ms")) || 3000;
      if (!lastClicked.has(button)) {
        lastClicked.set(button, now); // the page has just loaded its data
      } else if (now - lastClicked.get(button) >= every && !button.disabled) {
        lastClicked.set(button, now);
        button.click();
      }
    });
  }, 500);
})();
