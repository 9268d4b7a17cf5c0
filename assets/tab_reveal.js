// A tab list that scrolls sideways (class "scroll-x", e.g. the moderation queues on a phone)
// keeps its selected tab in sight: when a tab becomes selected, by a click, the keyboard or
// the page opening on ?tab=, the list scrolls just enough to show it. Only the list moves,
// never the page.
(function () {
  "use strict";
  if (window.benchmaxTabReveal) {
    return;
  }
  window.benchmaxTabReveal = true;
  var MARGIN = 24; // room for the edge's scroll shadow

  function reveal(tab) {
    var list = tab.closest(".scroll-x");
    if (!list) { return; }
    var box = list.getBoundingClientRect();
    var own = tab.getBoundingClientRect();
    if (own.left < box.left + MARGIN) {
      list.scrollLeft -= box.left + MARGIN - own.left;
    } else if (own.right > box.right - MARGIN) {
      list.scrollLeft += own.right - (box.right - MARGIN);
    }
  }

  // Only a newly selected tab is brought into sight: a list the reader scrolled by hand stays
  // where they left it while the rest of the page updates.
  var shown = [];
  function revealAll(force) {
    var tabs = document.querySelectorAll(".scroll-x [role='tab'][aria-selected='true']");
    for (var i = 0; i < tabs.length; i++) {
      if (force === true || shown.indexOf(tabs[i]) < 0) { reveal(tabs[i]); }
    }
    shown = Array.prototype.slice.call(tabs);
  }

  new MutationObserver(revealAll).observe(document.documentElement, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ["aria-selected"],
  });
  window.addEventListener("resize", function () { revealAll(true); });
  revealAll(); // the page may have drawn its tabs before this script arrived
})();
