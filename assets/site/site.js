// csl-game site: step through a match's moves on its board (no libraries).
// The page holds the match as JSON (#match-data); the board is drawn as the
// server drew the final one: round pieces as discs, square ones as squares.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("match-data").textContent);
  var box = document.getElementById("board");
  var status = document.getElementById("status");
  var moves = data.moves, rows = data.settings.rows || 6, cols = data.settings.cols || 7;
  var cell = 40, step = moves.length, timer = null;
  var fill = {white: "#f4f1e8", red: "#c8323c"}, stroke = {white: "#55524a", red: "#6d1016"};
  var svgNS = "http://www.w3.org/2000/svg";

  function el(name, attrs) {
    var node = document.createElementNS(svgNS, name);
    for (var key in attrs) { node.setAttribute(key, attrs[key]); }
    return node;
  }

  function winning() {
    var won = {};
    if (step === moves.length) {
      (data.solution || []).forEach(function (p) { won[p[0] + "," + p[1]] = true; });
    }
    return won;
  }

  function draw() {
    var width = cols * cell + 20, height = rows * cell + 40;
    var svg = el("svg", {"class": "board", viewBox: "0 0 " + width + " " + height,
                         role: "img", "aria-label": describe()});
    svg.appendChild(el("rect", {x: 5, y: 5, width: cols * cell + 10,
                                height: rows * cell + 10, rx: 8, "class": "frame"}));
    for (var c = 0; c < cols; c++) {
      var label = el("text", {x: 10 + c * cell + cell / 2, y: rows * cell + 34, "class": "col"});
      label.textContent = String(c);
      svg.appendChild(label);
      for (var r = 0; r < rows; r++) {
        svg.appendChild(el("circle", {cx: 10 + c * cell + cell / 2,
                                      cy: 10 + (rows - 1 - r) * cell + cell / 2,
                                      r: cell * 0.42, "class": "hole"}));
      }
    }
    var won = winning(), size = cell * 0.38;
    for (var i = 0; i < step; i++) {
      var m = moves[i];
      var x = 10 + m.col * cell + cell / 2, y = 10 + (rows - 1 - m.row) * cell + cell / 2;
      var cls = "piece" + (won[m.row + "," + m.col] ? " win" : "") +
                (i === step - 1 ? " last" : "");
      var common = {fill: fill[m.color], stroke: stroke[m.color], "stroke-width": 2,
                    "class": cls};
      var shape = m.shape === "round"
        ? el("circle", Object.assign({cx: x, cy: y, r: size}, common))
        : el("rect", Object.assign({x: x - size, y: y - size, width: 2 * size,
                                    height: 2 * size, rx: 3}, common));
      svg.appendChild(shape);
    }
    box.replaceChildren(svg);
    status.textContent = describe();
    document.querySelectorAll("tr.current").forEach(function (tr) {
      tr.classList.remove("current");
    });
    var table = document.querySelector("section h2#moves");
    if (table && step > 0) {
      var tr = table.parentNode.querySelectorAll("tbody tr")[step - 1];
      if (tr) { tr.classList.add("current"); }
    }
  }

  function describe() {
    if (step === 0) { return "The empty board, before the first move."; }
    var m = moves[step - 1];
    return "After move " + step + " of " + moves.length + ": " +
      (m.color === "white" ? "White (" + data.white + ")" : "Red (" + data.red + ")") +
      " dropped a " + m.shape + " piece in column " + m.col + ".";
  }

  function go(to) {
    step = Math.max(0, Math.min(moves.length, to));
    draw();
    if (window.history && history.replaceState) {  // a link to this position
      history.replaceState(null, "", "#move=" + step);
    }
  }

  function play() {
    var button = document.querySelector('[data-step="play"]');
    if (timer !== null) {
      clearInterval(timer);
      timer = null;
      button.textContent = "\u25B6 Play";
      return;
    }
    if (step === moves.length) { go(0); }
    button.textContent = "Pause";
    timer = setInterval(function () {
      if (step >= moves.length) { play(); return; }
      go(step + 1);
    }, 700);
  }

  document.querySelectorAll("[data-step]").forEach(function (button) {
    button.addEventListener("click", function () {
      var what = button.getAttribute("data-step");
      if (what === "play") { play(); return; }
      go({first: 0, prev: step - 1, next: step + 1, last: moves.length}[what]);
    });
  });
  document.addEventListener("keydown", function (event) {
    var keys = {ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: moves.length};
    if (event.key in keys) { go(keys[event.key]); event.preventDefault(); }
    else if (event.key === " " && event.target === document.body) {
      play(); event.preventDefault();
    }
  });
  var asked = /move=(\d+)/.exec(window.location.hash);
  go(asked ? parseInt(asked[1], 10) : moves.length);
  document.documentElement.setAttribute("data-ready", "1");
}());
