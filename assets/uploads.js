// Evidence uploads for the /submit wizard: one request per file, so each file gets its own
// progress bar. The browser checks type and size first (the server checks again, from the
// bytes); when a file is stored, the hidden #files-refresh button asks the page state to
// reload the file list from the server, which stays the source of truth.
//
// Files dropped before anything was typed first ask the page to start a draft (the hidden
// #draft-create button) and go once it exists. Each upload can be cancelled while it runs:
// every upload carries a random X-Upload-Key, and Cancel both aborts the request and tells the
// server that key is cancelled, because the bytes may all have arrived before the click. Only
// the server's answer lets the row say the file was not added.
// An image that passed its scan is shown as a thumbnail from the contributor's own copy of
// the file: draft evidence is never served, by this app or by the user-content origin.
(function () {
  "use strict";
  if (window.benchmaxUploads) {
    return;
  }
  window.benchmaxUploads = true;
  var MIB = 1024 * 1024;
  var DRAFT_WAIT_MS = 15000;
  var thumbs = {}; // evidence id -> object URL of the file this tab uploaded

  // The accepted kinds (label, max MiB, content types, extensions) come from the server's
  // table of accepted types, written on the drop zone, so this script never has its own list.
  function kindOf(zone, file) {
    var kinds = JSON.parse(zone.getAttribute("data-kinds") || "[]");
    var name = file.name.toLowerCase();
    for (var i = 0; i < kinds.length; i++) {
      var kind = kinds[i];
      for (var j = 0; j < kind.exts.length; j++) {
        if (name.slice(-kind.exts[j].length) === kind.exts[j]) { return kind; }
      }
      if (file.type && kind.types.indexOf(file.type) >= 0) { return kind; }
    }
    return null;
  }

  function row(queue, name) {
    var item = document.createElement("div");
    item.className = "upload-item";
    item.setAttribute("role", "status");
    var label = document.createElement("div");
    label.className = "upload-name";
    label.textContent = name;
    var bar = document.createElement("progress");
    bar.max = 100;
    bar.value = 0;
    bar.setAttribute("aria-label", "Uploading " + name);
    var note = document.createElement("div");
    note.className = "upload-note";
    var cancel = document.createElement("button");
    cancel.type = "button";
    cancel.className = "upload-cancel";
    cancel.textContent = "Cancel";
    cancel.setAttribute("aria-label", "Cancel uploading " + name);
    item.appendChild(label);
    item.appendChild(bar);
    item.appendChild(cancel);
    item.appendChild(note);
    queue.appendChild(item);
    return { item: item, bar: bar, note: note, cancel: cancel };
  }

  function fail(view, message) {
    view.item.classList.add("upload-failed");
    view.item.setAttribute("role", "alert");
    view.bar.remove();
    view.cancel.remove();
    view.note.textContent = message;
    var dismiss = document.createElement("button");
    dismiss.type = "button";
    dismiss.className = "upload-dismiss";
    dismiss.textContent = "\u00d7";
    dismiss.setAttribute("aria-label", "Dismiss this message");
    dismiss.addEventListener("click", function () { view.item.remove(); });
    view.item.insertBefore(dismiss, view.note);
  }

  function refresh() {
    var button = document.getElementById("files-refresh");
    if (button) { button.click(); }
  }

  function send(zone, file) {
    var queue = document.getElementById("upload-queue");
    var view = row(queue, file.name);
    var kind = kindOf(zone, file);
    if (!kind) {
      fail(view, "Not accepted: use PNG, JPEG, WebP, GIF, MP4, WebM, text, Markdown, JSON, " +
        "logs or a ZIP.");
      return;
    }
    if (file.size > kind.max * MIB) {
      fail(view, "Too large: " + kind.label + " files can be up to " + kind.max + " MiB.");
      return;
    }
    withDraft(view, function (draft) { upload(view, file, draft); });
  }

  // Waits for the page to give the drop zone a draft id, asking it to start one if needed.
  function withDraft(view, then) {
    var zone = document.getElementById("dropzone");
    var draft = zone && zone.getAttribute("data-draft");
    if (draft) { then(draft); return; }
    view.note.textContent = "Starting your draft…";
    var button = document.getElementById("draft-create");
    if (button && !withDraft.asked) { withDraft.asked = true; button.click(); }
    var started = Date.now();
    var timer = setInterval(function () {
      var current = document.getElementById("dropzone");
      var id = current && current.getAttribute("data-draft");
      if (id || Date.now() - started > DRAFT_WAIT_MS) {
        clearInterval(timer);
        withDraft.asked = false;
        if (id) { then(id); } else {
          fail(view, "Could not start a draft to attach this file to. Reload and try again.");
        }
      }
    }, 100);
  }

  function uploadKey() {
    if (window.crypto && crypto.randomUUID) { return crypto.randomUUID(); }
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) {
      return (b + 256).toString(16).slice(1);
    }).join("");
  }

  // Aborting alone cannot promise "not added": the server may hold every byte already. The
  // row says so only once the server has recorded the cancel, and the list is reloaded in
  // case the file had shown up in it.
  function cancelUpload(view, file, draft, key, xhr) {
    view.cancelling = true;
    xhr.abort();
    view.cancel.disabled = true;
    view.note.textContent = "Cancelling…";
    var url = "/api/v1/tests/" + encodeURIComponent(draft) + "/uploads/" + key;
    fetch(url, { method: "DELETE", credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) { throw new Error(String(response.status)); }
        fail(view, "Cancelled: " + file.name + " was not added.");
        view.item.classList.add("upload-cancelled");
      })
      .catch(function () {
        fail(view, "Could not confirm the cancel. If " + file.name +
          " appears in the list below, remove it there.");
      })
      .then(refresh);
  }

  function upload(view, file, draft) {
    var xhr = new XMLHttpRequest();
    var key = uploadKey();
    view.cancel.addEventListener("click", function () {
      cancelUpload(view, file, draft, key, xhr);
    });
    xhr.open("POST", "/api/v1/tests/" + encodeURIComponent(draft) + "/files");
    xhr.setRequestHeader("X-Filename", encodeURIComponent(file.name));
    xhr.setRequestHeader("X-Upload-Key", key);
    xhr.setRequestHeader("Content-Type", "application/octet-stream");
    xhr.upload.onprogress = function (event) {
      if (event.lengthComputable) {
        view.bar.value = Math.round((event.loaded / event.total) * 100);
        view.note.textContent = view.bar.value + "%";
      }
    };
    xhr.onload = function () {
      if (view.cancelling) { return; }
      if (xhr.status === 201) {
        try {
          var stored = JSON.parse(xhr.responseText);
          if (/^image\//.test(file.type)) { thumbs[stored.id] = URL.createObjectURL(file); }
        } catch (ignored) {}
        view.item.remove();
        refresh();
        return;
      }
      var message = "Upload failed (" + xhr.status + ").";
      try { message = JSON.parse(xhr.responseText).error.message; } catch (ignored) {}
      fail(view, message);
      refresh();
    };
    xhr.onerror = function () {
      if (view.cancelling) { return; }
      fail(view, "The connection dropped. Your draft is safe; try this file again.");
    };
    xhr.send(file);
  }

  // The list is drawn by the page and its rows are reused as files come and go, so each
  // slot is checked against the file it now stands for: a thumbnail only for an image the
  // scan approved, and only this tab's own copy of it.
  function syncThumbs() {
    var slots = document.querySelectorAll(".file-thumb[data-file-id]");
    for (var i = 0; i < slots.length; i++) {
      var slot = slots[i];
      var id = slot.getAttribute("data-file-id");
      var ok = slot.getAttribute("data-state") === "approved" &&
        slot.getAttribute("data-kind") === "image" && thumbs[id];
      var img = slot.querySelector("img");
      if (!ok) {
        if (img) { img.remove(); }
        continue;
      }
      if (!img) {
        img = document.createElement("img");
        img.alt = "";
        img.className = "file-thumb-image";
        slot.appendChild(img);
      }
      if (img.getAttribute("src") !== thumbs[id]) { img.setAttribute("src", thumbs[id]); }
    }
  }

  new MutationObserver(syncThumbs).observe(document.documentElement, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ["data-file-id", "data-state", "data-kind"],
  });

  function sendAll(zone, files) {
    for (var i = 0; i < files.length; i++) { send(zone, files[i]); }
  }

  document.addEventListener("change", function (event) {
    var input = event.target;
    if (input && input.id === "evidence-input") {
      sendAll(document.getElementById("dropzone"), input.files);
      input.value = "";
    }
  });
  document.addEventListener("dragover", function (event) {
    var zone = event.target.closest && event.target.closest("#dropzone");
    if (zone) { event.preventDefault(); zone.classList.add("dragging"); }
  });
  document.addEventListener("dragleave", function (event) {
    var zone = event.target.closest && event.target.closest("#dropzone");
    if (zone) { zone.classList.remove("dragging"); }
  });
  document.addEventListener("drop", function (event) {
    var zone = event.target.closest && event.target.closest("#dropzone");
    if (zone) {
      event.preventDefault();
      zone.classList.remove("dragging");
      sendAll(zone, event.dataTransfer.files);
    }
  });
})();
