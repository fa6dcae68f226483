// csl-game site: no libraries, nothing from the network but the site's own files.
// - A live page (body[data-live]) loads live.js every few seconds (a script,
//   so it works from file:// as from a server) and redraws what changed: the
//   index its sections (from index-live.js) and the boards of the matches
//   being played, a match page its links to the other matches. The reader
//   keeps their place, their focus and the move they look at; a page that
//   becomes final says so and stops asking.
// - A match page (#match-data) steps through the moves on the board:
//   buttons, arrow keys, the move list, a link to a position (#move=12).
(function () {
  "use strict";
  var POLL_MS = 2000, QUIET_MS = 60000;
  var body = document.body;
  var svgNS = "http://www.w3.org/2000/svg";
  var fill = {white: "#f4f1e8", red: "#c8323c"}, stroke = {white: "#55524a", red: "#6d1016"};

  function el(name, attrs) {
    var node = document.createElementNS(svgNS, name);
    for (var key in attrs) { node.setAttribute(key, attrs[key]); }
    return node;
  }

  // The board after `upto` moves, drawn as the server draws it.
  function board(settings, moves, upto, solution, label) {
    var rows = settings.rows || 6, cols = settings.cols || 7, cell = 40;
    var svg = el("svg", {"class": "board", viewBox: "0 0 " + (cols * cell + 20) + " " +
                         (rows * cell + 40), role: "img", "aria-label": label});
    svg.appendChild(el("rect", {x: 5, y: 5, width: cols * cell + 10,
                                height: rows * cell + 10, rx: 8, "class": "frame"}));
    for (var c = 0; c < cols; c++) {
      var text = el("text", {x: 10 + c * cell + cell / 2, y: rows * cell + 34, "class": "col"});
      text.textContent = String(c);
      svg.appendChild(text);
      for (var r = 0; r < rows; r++) {
        svg.appendChild(el("circle", {cx: 10 + c * cell + cell / 2,
                                      cy: 10 + (rows - 1 - r) * cell + cell / 2,
                                      r: cell * 0.42, "class": "hole"}));
      }
    }
    var won = {}, size = cell * 0.38;
    if (upto === moves.length) {
      (solution || []).forEach(function (p) { won[p[0] + "," + p[1]] = true; });
    }
    for (var i = 0; i < upto; i++) {
      var m = moves[i];
      var x = 10 + m.col * cell + cell / 2, y = 10 + (rows - 1 - m.row) * cell + cell / 2;
      var common = {fill: fill[m.color], stroke: stroke[m.color], "stroke-width": 2,
                    "class": "piece" + (won[m.row + "," + m.col] ? " win" : "") +
                             (i === upto - 1 ? " last" : "")};
      svg.appendChild(m.shape === "round"
        ? el("circle", Object.assign({cx: x, cy: y, r: size}, common))
        : el("rect", Object.assign({x: x - size, y: y - size, width: 2 * size,
                                    height: 2 * size, rx: 3}, common)));
    }
    return svg;
  }

  function localTimes(root) {
    (root || document).querySelectorAll("time.eta[datetime]").forEach(function (t) {
      var when = new Date(t.getAttribute("datetime"));
      if (!isNaN(when)) {
        t.textContent = when.toLocaleTimeString([], {hour: "2-digit", minute: "2-digit"});
      }
    });
  }

  // A name in plain text, isolated (a right-to-left name or one holding an
  // override cannot reorder the words around it), as <bdi> does in markup.
  function isolate(name) { return "\u2068" + name + "\u2069"; }

  function announce(text) {
    var box = document.getElementById("announce");
    if (box) { box.textContent = text; }
  }

  // ------------------------------------------------------------ a match page
  var replay = null;
  var dataNode = document.getElementById("match-data");
  if (dataNode) { replay = matchPage(JSON.parse(dataNode.textContent)); }

  function matchPage(data) {
    var moves = data.moves, step = moves.length, timer = null;
    var box = document.getElementById("board");
    var status = document.getElementById("status");
    var player = document.getElementById("replay");
    var controls = document.querySelector(".controls");
    var playButton = document.querySelector('[data-step="play"]');
    var rows = document.querySelectorAll("#moves tbody tr");
    if (!moves.length || !box) { return null; }
    controls.hidden = false;

    rows.forEach(function (tr, i) {  // each move a link to its position
      var head = tr.querySelector("th");
      if (head) {
        var a = document.createElement("a");
        a.href = "#move=" + (i + 1);
        a.textContent = head.textContent;
        a.setAttribute("aria-label", "Show move " + (i + 1));
        head.replaceChildren(a);
      }
      tr.addEventListener("click", function (event) {
        if (!event.target.closest("a")) { go(i + 1); }
      });
    });

    function describe() {
      if (step === 0) { return "The empty board, before the first move."; }
      var m = moves[step - 1];
      return "After move " + step + " of " + moves.length + ": " +
        (m.color === "white" ? "White (" + isolate(data.white) + ")"
                             : "Red (" + isolate(data.red) + ")") +
        " dropped a " + m.shape + " piece in column " + m.col + ".";
    }

    function draw() {
      box.replaceChildren(board(data.settings, moves, step, data.solution, describe()));
      status.textContent = describe();
      rows.forEach(function (tr, i) {
        var current = i === step - 1, link = tr.querySelector("a");
        tr.classList.toggle("current", current);
        if (link) {
          if (current) { link.setAttribute("aria-current", "step"); }
          else { link.removeAttribute("aria-current"); }
        }
      });
      document.querySelectorAll("svg.chart[data-x0]").forEach(function (svg) {
        var line = svg.querySelector("line.cursor");
        var from = parseFloat(svg.getAttribute("data-from"));
        var to = parseFloat(svg.getAttribute("data-to"));
        var x0 = parseFloat(svg.getAttribute("data-x0"));
        var x1 = parseFloat(svg.getAttribute("data-x1"));
        if (!line) { return; }
        if (step < from) { line.setAttribute("visibility", "hidden"); return; }
        var x = x0 + (x1 - x0) * (Math.min(step, to) - from) / Math.max(1, to - from);
        line.setAttribute("x1", x.toFixed(1));
        line.setAttribute("x2", x.toFixed(1));
        line.setAttribute("visibility", "visible");
      });
    }

    function go(to, keepHash) {
      if (isNaN(to)) { return; }
      step = Math.max(0, Math.min(moves.length, to));
      draw();
      if (!keepHash && window.history && history.replaceState) {  // a link to this position
        history.replaceState(null, "", "#move=" + step);
      }
    }

    function stop() {
      clearInterval(timer);
      timer = null;
      playButton.innerHTML = '<span aria-hidden="true">\u25B6</span> Play';
      status.setAttribute("aria-live", "polite");
    }

    function play() {
      if (timer !== null) { stop(); return; }
      if (step === moves.length) { go(0); }
      playButton.innerHTML = '<span aria-hidden="true">\u275A\u275A</span> Pause';
      status.setAttribute("aria-live", "off");  // not every step read out while playing
      timer = setInterval(function () {
        if (step >= moves.length) { stop(); return; }
        go(step + 1);
      }, 700);
    }

    document.querySelectorAll("[data-step]").forEach(function (button) {
      button.addEventListener("click", function () {
        var what = button.getAttribute("data-step");
        if (what === "play") { play(); return; }
        if (timer !== null) { stop(); }
        go({first: 0, prev: step - 1, next: step + 1, last: moves.length}[what]);
      });
    });
    document.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) { return; }
      var target = event.target;
      var inside = player.contains(target);
      var free = target === body || target === document.documentElement ||
                 target.id === "main";
      if (!inside && !free) { return; }  // links, tables, other controls keep their keys
      var to = {ArrowLeft: step - 1, ArrowRight: step + 1}[event.key];
      if (inside && (event.key === "Home" || event.key === "End")) {
        to = event.key === "Home" ? 0 : moves.length;  // elsewhere they scroll the page
      }
      if (to !== undefined) {
        if (timer !== null) { stop(); }
        go(to);
        event.preventDefault();
      }
    });
    window.addEventListener("hashchange", function () {
      var asked = /move=(\d+)/.exec(window.location.hash);
      if (asked && timer !== null) { stop(); }  // a link to a position: look at it
      if (asked) { go(parseInt(asked[1], 10), true); }
    });
    var asked = /move=(\d+)/.exec(window.location.hash);
    go(asked ? parseInt(asked[1], 10) : moves.length, !asked);
    return {step: function () { return step; }};
  }

  // ------------------------------------------------------------ live pages
  var live = body.hasAttribute("data-live");
  var indexVersion = parseInt(body.getAttribute("data-version") || "0", 10);
  var lastBeat = null, beatSeen = Date.now(), lastLive = null, polling = null;

  function load(name, done) {
    var script = document.createElement("script");
    script.src = name + "?v=" + Date.now();
    script.onload = script.onerror = function () { script.remove(); if (done) { done(); } };
    document.head.appendChild(script);
  }

  window.cslSiteLive = function (data) {
    if (!live) { return; }
    if (!lastLive || lastLive.version !== data.version) {  // (the tests count them)
      window.cslSiteUpdates = (window.cslSiteUpdates || 0) + 1;
    }
    lastLive = data;
    var state = document.getElementById("site-state");
    if (state && state.textContent !== data.text) { state.textContent = data.text; }
    if (data.beat !== lastBeat) { lastBeat = data.beat; beatSeen = Date.now(); }
    stale(Date.now() - beatSeen > QUIET_MS && (data.state === "live" ||
                                                data.state === "starting"));
    var page = body.getAttribute("data-page");
    if (sectionsName && data.index > indexVersion && !loading) {
      loading = true;
      asked = data.index;
      load(sectionsName + "-live.js", function () { if (!pending) { loading = false; } });
    }
    if (page === "index") { drawNow(data); }
    if (page === "match") { neighbours(data.runs || []); }
    if (data.state === "final" || data.state === "stopped") {
      live = false;  // the last word: no more asking
      body.removeAttribute("data-live");
      body.setAttribute("data-state", data.state);
      clearInterval(polling);
      announce(data.text);
    }
  };

  // A live page kept by its sections (the index, the plots, a page of
  // matches): its manifest (NAME-live.js) gives each section's frame, its
  // parts left empty and named by their digest; the parts this page does not
  // show yet are loaded (part-DIGEST.js, each once), then what changed is
  // swapped in. A part that cannot be loaded (gone meanwhile) leaves the page
  // as it is until the next update.
  var sectionsName = body.getAttribute("data-sections"), asked = 0, loading = false;
  var pending = 0;  // parts being loaded
  var parts = {};
  window.cslSitePart = function (digest, html) { parts[digest] = html; };

  function nodeOf(html) {
    var template = document.createElement("template");
    template.innerHTML = html;
    return template.content.firstElementChild;
  }

  function shown(digest) {
    return document.querySelector('#main [data-d="' + digest + '"]');
  }

  window.cslSiteIndex = function (data) {
    if (data.version <= indexVersion) {  // this page did not change
      indexVersion = Math.max(indexVersion, asked);
      loading = false;
      return;
    }
    var missing = [], seen = {};
    data.sections.forEach(function (section) {
      section[2].replace(/data-d="([0-9a-f]+)"/g, function (all, digest) {
        if (!seen[digest] && !parts[digest] && !shown(digest)) { missing.push(digest); }
        seen[digest] = true;
        return all;
      });
    });
    var waiting = missing.length;
    pending = waiting;
    function ready() {
      pending = 0;
      if (missing.some(function (d) { return !parts[d]; })) { loading = false; return; }
      redraw(data);
      indexVersion = Math.max(data.version, asked);
      body.setAttribute("data-version", String(indexVersion));
      window.cslSiteLoaded = (window.cslSiteLoaded || 0) + 1;  // (the tests count them)
      loading = false;
      parts = {};
    }
    if (!waiting) { ready(); return; }
    missing.forEach(function (digest) {
      load("part-" + digest + ".js", function () { if (--waiting === 0) { ready(); } });
    });
  };

  function partNode(digest) {
    return shown(digest) || nodeOf(parts[digest]);
  }

  // The frame of a section filled with its parts (the ones shown moved in).
  function filled(frame) {
    if (frame.hasAttribute("data-part")) { return partNode(frame.getAttribute("data-d")); }
    frame.querySelectorAll("[data-part]").forEach(function (slot) {
      slot.replaceWith(partNode(slot.getAttribute("data-d")));
    });
    return frame;
  }

  function redraw(data) {
    var main = document.getElementById("main");
    var active = document.activeElement, activeSection = active && active.closest
      ? active.closest("main > section") : null;
    var focusKey = activeSection ? keyOf(active, activeSection) : null;
    var anchor = null, anchorTop = 0;  // keep what the reader looks at where it is
    Array.prototype.some.call(main.children, function (node) {
      var top = node.getBoundingClientRect();
      if (top.bottom > 0) { anchor = node.id; anchorTop = top.top; return true; }
      return false;
    });
    var opened = {};  // the rounds the reader opened or folded stay so
    main.querySelectorAll("details[id]").forEach(function (d) { opened[d.id] = d.open; });
    var existing = {}, kept = {};
    data.sections.forEach(function (section) { kept[section[0]] = true; });
    Array.prototype.slice.call(main.children).forEach(function (node) {
      // a section gone (the matches being played, once the session stopped)
      // goes first, so that the sections after it are not moved for it
      if (node.id && !kept[node.id]) { node.remove(); } else if (node.id) { existing[node.id] = node; }
    });
    var previous = null;
    data.sections.forEach(function (section) {
      var id = section[0], shape = section[1], frame = nodeOf(section[2]);
      var node = existing[id];
      delete existing[id];
      if (node && node.getAttribute("data-s") === shape) {  // the same frame: parts
        var slots = [frame].concat(Array.prototype.slice.call(
          frame.querySelectorAll("[data-part]")));
        slots.forEach(function (slot) {
          var name = slot.getAttribute("data-part"), digest = slot.getAttribute("data-d");
          if (!name) { return; }
          var now = node.getAttribute("data-part") === name ? node
            : node.querySelector('[data-part="' + name + '"]');
          if (!now || now.getAttribute("data-d") === digest) { return; }
          var fresh = partNode(digest);
          now.replaceWith(fresh);
          if (now === node) { node = fresh; }
        });
      } else {
        var made = filled(frame);
        if (node) { node.replaceWith(made); } else { main.appendChild(made); }
        node = made;
      }
      if (previous ? previous.nextElementSibling !== node : main.firstElementChild !== node) {
        if (previous) { previous.after(node); } else { main.prepend(node); }
      }
      previous = node;
    });
    main.querySelectorAll("details[id]").forEach(function (d) {
      if (Object.prototype.hasOwnProperty.call(opened, d.id)) { d.open = opened[d.id]; }
    });
    localTimes(main);
    if (focusKey && !document.contains(active)) {
      refocus(focusKey);
    } else if (focusKey && document.activeElement !== active) {
      active.focus({preventScroll: true});  // moved with its section: a move blurs it
    }
    var held = anchor && document.getElementById(anchor);
    if (held) { window.scrollBy(0, held.getBoundingClientRect().top - anchorTop); }
    if (lastLive) { drawNow(lastLive); }
  }

  function keyOf(node, section) {
    var all = Array.prototype.slice.call(section.querySelectorAll("a, button, [tabindex]"));
    return {section: section.id, href: node.getAttribute("href"),
            text: node.textContent, at: all.indexOf(node)};
  }

  function refocus(key) {
    var section = document.getElementById(key.section);
    if (!section) {  // its section is gone: the line saying how far the event is
      var state = document.getElementById("site-state");
      if (state) { state.tabIndex = -1; state.focus({preventScroll: true}); }
      return;
    }
    var all = Array.prototype.slice.call(section.querySelectorAll("a, button, [tabindex]"));
    var same = all.filter(function (n) {
      return n.getAttribute("href") === key.href && n.textContent === key.text;
    })[0] || all[key.at] || section.querySelector("h2");
    if (same) {
      if (!same.hasAttribute("tabindex") && same.tagName === "H2") { same.tabIndex = -1; }
      same.focus({preventScroll: true});
    }
  }

  // The matches played here, move by move: their board and each side's figures.
  function drawNow(data) {
    (data.now || []).forEach(function (now) {
      var card = document.querySelector('#now-list [data-match="' + now.match + '"]');
      if (!card) { return; }
      var spot = card.querySelector(".now-board");
      var shown = card.getAttribute("data-moves");
      var count = now.moves.length;
      if (spot && shown !== String(count)) {
        card.setAttribute("data-moves", String(count));
        spot.replaceChildren(board(data.settings || {}, now.moves, count, [],
                                   "Match " + now.match + " after " + count + " moves"));
      }
      var text = card.querySelector(".moves-n");
      if (text) { text.textContent = count + (count === 1 ? " move" : " moves") + " so far"; }
      ["white", "red"].forEach(function (side) {
        var line = card.querySelector(".figs." + side);
        if (!line) {
          line = document.createElement("p");
          line.className = "figs " + side;
          line.innerHTML = '<span class="who"></span> <span class="val"></span>';
          card.appendChild(line);
        }
        var figures = (now.figures || {})[side] || {};
        var words = Object.keys(figures).map(function (k) { return k + "=" + figures[k]; });
        line.querySelector(".who").textContent =
          (side === "white" ? "White (" + isolate(now.white) + ")"
                            : "Red (" + isolate(now.red) + ")");
        line.querySelector(".val").textContent = words.length ? words.join(" ")
          : "no figures reported";
      });
    });
  }

  // The matches played before and after this one, from the runs [first, last]
  // of the numbers played.
  function neighbours(runs) {
    var here = parseInt(body.getAttribute("data-match"), 10), before = null, after = null;
    runs.forEach(function (run) {
      if (run[0] < here) { before = Math.min(run[1], here - 1); }
      if (after === null && run[1] > here) { after = Math.max(run[0], here + 1); }
    });
    link("prev-match", before, "\u2190 Match ", "");
    link("next-match", after, "Match ", " \u2192");
  }

  function link(id, number, before, after) {
    var a = document.getElementById(id);
    if (!a) { return; }
    if (number === null) { a.hidden = true; a.removeAttribute("href"); return; }
    a.href = "match-" + number + ".html";
    a.textContent = before + number + after;
    a.hidden = false;
  }

  function stale(quiet) {
    var note = document.getElementById("site-stale");
    if (quiet && !note) {
      note = document.createElement("p");
      note.id = "site-stale";
      note.className = "state stale";
      note.textContent = "No news from the session for over a minute: it may have " +
        "stopped without a word.";
      document.getElementById("site-state").after(note);
    } else if (!quiet && note) {
      note.remove();
    }
  }

  localTimes(document);
  if (live) {
    polling = setInterval(function () { load("live.js"); }, POLL_MS);
    load("live.js");
  }
  document.documentElement.setAttribute("data-ready", "1");
}());
