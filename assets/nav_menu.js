// The phone header's Menu button (#nav-menu-button): a disclosure, not an ARIA menu, so the
// links inside stay ordinary links in Tab order. A click or Enter/Space toggles aria-expanded
// (assets/shell.css shows the panel from it); Escape (focus on the button or in the
// panel) closes it and puts focus back on the button; following a link inside closes it.
(function () {
  "use strict";
  if (window.benchmaxNavMenu) {
    return;
  }
  window.benchmaxNavMenu = true;

  function isOpen(button) {
    return button !== null && button.getAttribute("aria-expanded") === "true";
  }

  document.addEventListener("click", function (event) {
    var target = event.target instanceof Element ? event.target : null;
    var button = target && target.closest("#nav-menu-button");
    if (button) {
      button.setAttribute("aria-expanded", isOpen(button) ? "false" : "true");
      return;
    }
    var opened = document.getElementById("nav-menu-button");
    if (isOpen(opened) && target && target.closest("#nav-menu a")) {
      opened.setAttribute("aria-expanded", "false");
    }
  });

  document.addEventListener("keydown", function (event) {
    var button = document.getElementById("nav-menu-button");
    var menu = document.getElementById("nav-menu");
    var inside = document.activeElement === button || (menu && menu.contains(document.activeElement));
    if (event.key !== "Escape" || !isOpen(button) || !inside) {
      return;
    }
    button.setAttribute("aria-expanded", "false");
    button.focus();
  });
})();
