// Evidence uploads for the /submit wizard: one request per file, so each file gets its own
// progress bar. The browser checks type and size first (the server checks again, from the
// bytes); when a file is stored, the hidden #files-refresh button asks the page state to
// reload the file list from the server, which stays the source of truth.
(function () {
  "use strict";
  var MIB = 1024 * 1024;

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
    item.appendChild(label);
    item.appendChild(bar);
    item.appendChild(note);
    queue.appendChild(item);
    return { item: item, bar: bar, note: note };
  }

  function fail(view, message) {
    view.item.classList.add("upload-failed");
    view.item.setAttribute("role", "alert");
    view.bar.remove();
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
    var draft = zone.getAttribute("data-draft");
    if (!draft) {
      fail(view, "Fill in the prompt on step 1 first, so there is a draft to attach files to.");
      return;
    }
    var xhr = new XMLHttpRequest();
    xhr.open("POST", "/api/v1/tests/" + encodeURIComponent(draft) + "/files");
    xhr.setRequestHeader("X-Filename", encodeURIComponent(file.name));
    xhr.setRequestHeader("Content-Type", "application/octet-stream");
    xhr.upload.onprogress = function (event) {
      if (event.lengthComputable) {
        view.bar.value = Math.round((event.loaded / event.total) * 100);
        view.note.textContent = view.bar.value + "%";
      }
    };
    xhr.onload = function () {
      if (xhr.status === 201) {
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
      fail(view, "The connection dropped. Your draft is safe; try this file again.");
    };
    xhr.send(file);
  }

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
