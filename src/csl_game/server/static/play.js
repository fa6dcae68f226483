// The game server's pages, alive: the lobby kept up to date, a game played or
// watched over the WebSocket (mouse, touch and keyboard). Without this script
// the pages still show their tables.
"use strict";
(() => {
  const doc = JSON.parse(document.body.dataset.doc || "{}");
  const page = document.body.dataset.page;
  const COLORS = {white: "#f4f1e8", red: "#c8323c"};
  const STROKE = {white: "#55524a", red: "#6d1016"};
  const SVG = "http://www.w3.org/2000/svg";
  const $ = (id) => document.getElementById(id);
  let ws = null, retry = 0;

  const NAME = /^[A-Za-z0-9][A-Za-z0-9 _.+-]{0,39}$/;
  const guest = "Guest " + (1000 + Math.floor(Math.random() * 9000));
  function keepName() {  // a name typed is kept at once: a link or an Accept uses it
    const field = $("name"), n = field ? field.value.trim() : "";
    if (NAME.test(n)) localStorage.setItem("csl-name", n);
  }
  function playerName() {
    keepName();
    const n = localStorage.getItem("csl-name") || "";
    return NAME.test(n) ? n : guest;  // a guest's made-up name is not kept
  }
  const unsent = [];  // what was asked before the socket was open: sent once it is
  function send(msg) {
    if (ws && ws.readyState === 1) ws.send(JSON.stringify(msg));
    else if (unsent.length < 20) unsent.push(msg);
  }
  function status(text) { const s = $("status"); if (s) s.textContent = text; }
  // A name shown is isolated from the words around it (a name written right to
  // left, or holding a direction override, would reorder them): in the page a
  // <bdi> (the site's class: it breaks anywhere too), in plain text (the title,
  // an ARIA label) between FIRST STRONG ISOLATE and POP DIRECTIONAL ISOLATE.
  function named(name) {
    const b = document.createElement("bdi");
    b.className = "name"; b.textContent = name;
    return b;
  }
  const isolated = (name) => "\u2068" + name + "\u2069";

  function connect(onOpen, onMessage) {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    ws = new WebSocket(scheme + location.host + "/ws");
    ws.onopen = () => {
      retry = 0;
      if ($("status").dataset.lost) { status(""); delete $("status").dataset.lost; }
      send({type: "hello", version: 1, name: playerName()});
      onOpen();
      for (const msg of unsent.splice(0)) send(msg);  // a click before the socket opened
    };
    ws.onmessage = (e) => {
      const msg = JSON.parse(e.data);
      if (msg.type === "ping") send({type: "pong"});
      else if (msg.type === "error") status(msg.message);
      else onMessage(msg);
    };
    ws.onclose = () => {  // a dropped page comes back to its game, as the app does
      if (document.body.dataset.over === "1") return;
      retry = Math.min(retry + 1, 4);
      status("Connection lost; trying again...");
      $("status").dataset.lost = "1";
      setTimeout(() => connect(onOpen, onMessage), 500 * 2 ** retry);
    };
  }

  // ------------------------------------------------------------------ the lobby
  function cell(content, href) {  // content: a text, a node, or a list of them
    const td = document.createElement("td"), parts = [].concat(content);
    if (href) { const a = document.createElement("a"); a.href = href; a.append(...parts); td.append(a); }
    else td.append(...parts);
    return td;
  }
  function fill(id, rows, empty) {
    const body = document.querySelector("#" + id + " tbody");
    if (!rows.length && empty) {  // a table with nothing in it says so
      const td = cell(empty);
      td.colSpan = document.querySelectorAll("#" + id + " thead th").length;
      td.className = "empty";
      const tr = document.createElement("tr"); tr.append(td);
      body.replaceChildren(tr);
      return;
    }
    body.replaceChildren(...rows.map((cells) => { const tr = document.createElement("tr"); tr.append(...cells); return tr; }));
  }
  function mine() {  // the challenges this browser made (to show them as its own)
    try { return JSON.parse(localStorage.getItem("csl-mine") || "[]"); } catch (e) { return []; }
  }
  function cancelCell(id) {
    const td = cell("Yours: ", "/game/" + id), b = document.createElement("button");
    td.firstChild.textContent = "open it";
    b.type = "button"; b.textContent = "Cancel"; b.className = "cancel";
    b.onclick = () => { send({type: "cancel", game: id}); b.disabled = true; };
    td.append(" ", b);
    return td;
  }
  function showLobby(lobby) {
    const own = new Set(mine());
    fill("challenges", lobby.challenges.map((c) => [cell(named(c.name)), cell(c.free), cell((c.clock || "none") + (c.rated ? ", rated" : "")),
      own.has(c.game) ? cancelCell(c.game) : cell("Accept", "/game/" + c.game + "?code=" + c.code)]),
      "No open challenge right now: open one above.");
    fill("games", lobby.games.map((g) => [cell([named(g.white), " - ", named(g.red)], "/game/" + g.game), cell(g.kind), cell(String(g.ply)),
      cell(String(g.watchers || 0))]),
      "No game is being played right now.");
    fill("ladder", lobby.ladder.map((r, i) => [cell(String(i + 1)), cell(named(r.name)),
      cell(r.rating === null ? "-" : Math.round(r.rating) + " \u00b1 " + Math.round((r.ci95[1] - r.ci95[0]) / 2)),
      cell(String(r.games)), r.online ? playCell(r.name) : cell("no")]),
      "No bot has joined the ladder yet.");
    $("ladder-note").hidden = !lobby.ladder.some((r) => r.online);
  }
  let creating = false;
  function create(opponent, extra) {
    creating = true;
    const tc = $("clock").value.split("+");
    const people = opponent !== "ai" && opponent !== "bot";
    const clock = tc.length === 2 && people ? {base: Number(tc[0]), increment: Number(tc[1])} : null;
    const rated = people && $("rated") && $("rated").checked ? {rated: true} : {};
    send({type: "hello", version: 1, name: playerName()});
    send({type: "create", opponent, color: $("color").value, level: $("level").value, clock, ...rated, ...extra});
  }
  function playCell(name) {  // an online bot takes a game against a person
    const td = cell("yes "), b = document.createElement("button");
    b.type = "button"; b.textContent = "Play"; b.className = "play-bot";
    b.setAttribute("aria-label", "Play " + isolated(name));
    b.onclick = () => create("bot", {bot: name});
    td.append(b);
    return td;
  }
  function lobby() {
    const form = $("create");
    form.hidden = false;
    document.querySelector(".needs-js").hidden = true;
    $("name").value = localStorage.getItem("csl-name") || "";
    $("name").addEventListener("input", keepName);
    if ($("you")) {  // signed in: the account's name plays, and may play rated
      $("name").value = $("you").dataset.account;
      $("name").readOnly = true;
      $("rated").parentElement.hidden = false;
    }
    $("friend").onclick = () => create("friend");
    $("open").onclick = () => create("open");
    $("ai").onclick = () => create("ai");
    connect(() => send({type: "lobby"}), (msg) => {
      if (msg.type === "lobby") showLobby(msg);
      else if (msg.type === "game" && msg.color && creating) {  // the game just made
        creating = false;
        if (!(msg.white && msg.red)) localStorage.setItem("csl-mine", JSON.stringify([msg.game, ...mine()].slice(0, 10)));
        location.href = "/game/" + msg.game;
      }
    });
  }

  // ------------------------------------------------------------------ a game
  const game = {id: doc.id, settings: doc.settings, moves: (doc.moves || []).slice(), color: null,
                code: "", white: doc.white, red: doc.red, col: 0, shape: "round", over: false, solution: [],
                kind: doc.kind, clock: doc.clock || null, offers: {}, step: null, declinedMine: {}};
  let clockAt = performance.now();  // when game.clock was told
  function setClock(clock) { game.clock = clock || null; clockAt = performance.now(); }
  function shown() { return game.step === null ? game.moves : game.moves.slice(0, game.step); }
  function clockText(ms) {
    const s = ms / 1000, m = Math.floor(s / 60);
    return s < 10 ? `0:0${s.toFixed(1)}` : `${m}:${String(Math.floor(s % 60)).padStart(2, "0")}`;
  }
  function showClocks() {  // both clocks, the side to move's ticking (the server decides the flag)
    const box = $("clocks");
    if (!box) return;
    box.hidden = !game.clock;
    if (!game.clock) return;
    const running = !game.over && game.white && game.red ? (game.moves.length % 2 === 0 ? "white" : "red") : null;
    for (const side of ["white", "red"]) {
      const ms = Math.max(0, game.clock[side] - (side === running ? performance.now() - clockAt : 0));
      const span = $("clock-" + side);
      span.replaceChildren(`${side === "white" ? "White" : "Red"} (`, named(game[side] || "?"), `) ${clockText(ms)}`);
      span.classList.toggle("running", side === running);
      span.dataset.ms = String(Math.round(ms));
    }
  }

  function myTurn() {
    return game.color && !game.over && game.white && game.red &&
      (game.moves.length % 2 === 0 ? "white" : "red") === game.color;
  }
  function el(name, attrs) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    return node;
  }
  function draw() {
    const box = $("board");
    if (!box || !game.settings) return;
    const rows = game.settings.rows, cols = game.settings.cols, c = 40;
    const svg = el("svg", {class: "board", viewBox: `0 0 ${cols * c + 20} ${rows * c + 40}`, role: "img",
                           "aria-label": `the board after ${shown().length} moves`});
    svg.append(el("rect", {x: 5, y: 5, width: cols * c + 10, height: rows * c + 10, rx: 8, class: "frame"}));
    if (myTurn()) svg.append(el("rect", {x: 10 + game.col * c, y: 10, width: c, height: rows * c, class: "pick"}));
    const moves = shown(), won = new Set(moves.length === game.moves.length ? game.solution.map((p) => p[0] + "," + p[1]) : []);
    for (let x = 0; x < cols; x++) {
      const label = el("text", {x: 10 + x * c + c / 2, y: rows * c + 34, class: "col"});
      label.textContent = String(x);
      svg.append(label);
      for (let y = 0; y < rows; y++) {
        svg.append(el("circle", {cx: 10 + x * c + c / 2, cy: 10 + (rows - 1 - y) * c + c / 2, r: c * 0.42, class: "hole"}));
      }
    }
    const height = new Array(cols).fill(0);
    moves.forEach((m, i) => {
      const row = height[m.col]++, color = i % 2 === 0 ? "white" : "red", s = c * 0.38;
      const x = 10 + m.col * c + c / 2, y = 10 + (rows - 1 - row) * c + c / 2;
      const cls = "piece" + (won.has(row + "," + m.col) ? " win" : "") + (i === moves.length - 1 ? " last" : "");
      const common = {fill: COLORS[color], stroke: STROKE[color], "stroke-width": 2, class: cls};
      svg.append(m.shape === "round" ? el("circle", {cx: x, cy: y, r: s, ...common})
        : el("rect", {x: x - s, y: y - s, width: 2 * s, height: 2 * s, rx: 3, ...common}));
    });
    svg.addEventListener("click", (e) => {
      const r = svg.getBoundingClientRect();
      const col = Math.floor(((e.clientX - r.left) / r.width * (cols * c + 20) - 10) / c);
      if (col >= 0 && col < cols) { game.col = col; play(); }
    });
    box.replaceChildren(svg);
    const mine = game.moves.filter((m, i) => (i % 2 === 0 ? "white" : "red") === game.color);
    for (const shape of ["round", "square"]) {
      const left = game.settings[shape + "_pieces"] - mine.filter((m) => m.shape === shape).length;
      $(shape).textContent = `${shape === "round" ? "Round (R)" : "Square (S)"}: ${left}`;
      $(shape).setAttribute("aria-pressed", String(game.shape === shape));
    }
    document.body.dataset.moves = String(game.moves.length);
    document.body.dataset.color = game.color || "";
    const who = game.moves.length % 2 === 0 ? game.white : game.red;
    if (!game.over) {
      $("result").replaceChildren(...(!(game.white && game.red) ? ["Waiting for an opponent"]
        : myTurn() ? ["Your move"] : [game.color ? "Waiting for " : "Watching: ", named(who), game.color ? "" : " to play"]));
    }
    $("controls").hidden = !game.color || game.over;
    const waiting = !(game.white && game.red);
    $("cancel").hidden = !waiting; $("resign").hidden = waiting;
    $("round").hidden = $("square").hidden = waiting;
    const people = game.kind !== "ai" && game.kind !== "bot" && game.kind !== "ladder";
    $("draw").hidden = $("takeback").hidden = waiting || !people;
    if (game.rated) $("takeback").hidden = true;  // a rated game takes nothing back
    const theirs = (what) => game.offers[what] && game.offers[what] !== game.color;
    $("draw").textContent = theirs("draw") ? "Accept the draw" : "Offer a draw";
    $("takeback").textContent = theirs("takeback") ? "Accept the takeback" : "Take back";
    for (const what of ["draw", "takeback"]) $(what).disabled = !!game.declinedMine[what];  // until the next move
    $("rematch").hidden = !(game.over && game.color && (people || game.kind === "ai"));
    $("rematch").textContent = theirs("rematch") ? "Accept the rematch" : "Rematch";
    for (const what of ["draw", "takeback", "rematch"]) {  // beside Accept: the other's offer declined
      $("decline-" + what).hidden = $(what).hidden || !theirs(what);
    }
    showClocks();
    if (game.step !== null) {
      document.body.dataset.step = String(game.step);
      $("step").textContent = `Move ${game.step} of ${game.moves.length}`;
      document.querySelectorAll("#moves tbody tr").forEach((tr, i) => {
        if (i === game.step - 1) tr.setAttribute("aria-current", "step"); else tr.removeAttribute("aria-current");
      });
      return;
    }
    const sides = [game.white, game.red];
    document.querySelector("h1").replaceChildren(...sides.flatMap((n, i) => [i ? " - " : "", n ? named(n) : "(waiting)"]));
    document.title = sides.map((n) => n ? isolated(n) : "(waiting)").join(" - ");
    const tbody = document.querySelector("#moves tbody");
    tbody.replaceChildren(...game.moves.map((m, i) => {
      const tr = document.createElement("tr");
      tr.append(cell(String(i + 1)), cell(i % 2 === 0 ? "White" : "Red"), cell(String(m.col)), cell(m.shape), cell(String(Math.round(m.ms))));
      return tr;
    }));
  }
  function play() {
    if (!myTurn()) return;
    send({type: "move", game: game.id, ply: game.moves.length, col: game.col, shape: game.shape});
  }
  let awayTimer = null;
  function away(msg) {  // the other side left: how long it has to come back, and when to claim
    clearInterval(awayTimer);
    const box = $("away"), name = msg.color === "white" ? game.white : game.red;
    $("claim").hidden = true;
    if (msg.seconds === null || game.over) { box.hidden = true; delete document.body.dataset.away; return; }
    const until = Date.now() + msg.seconds * 1000, claim = Date.now() + (msg.claim || 0) * 1000;
    const tick = () => {
      const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
      const may = game.color && game.color !== msg.color && Date.now() >= claim;
      box.replaceChildren(named(name), ` left the game: ${left} s to come back before losing it.`
        + (may ? " You may claim the win now." : ""));
      $("claim").hidden = !may || game.over;
    };
    tick();
    awayTimer = setInterval(tick, 1000);
    box.hidden = false;
    document.body.dataset.away = msg.color;
  }
  function watching(count) {  // how many watch the game (told with its state and each move)
    if (typeof count !== "number") return;
    $("watchers").textContent = count === 1 ? "1 watching" : `${count} watching`;
    $("watchers").hidden = false;
    document.body.dataset.watchers = String(count);
  }
  const OFFERS = {draw: "a draw", takeback: "to take back a move", rematch: "a rematch"};
  function offered(msg) {  // an offer: mine (waiting) or the other side's (the same button accepts)
    game.offers[msg.what] = msg.color;
    const box = $("offer"), who = msg.color === "white" ? game.white : game.red;
    box.replaceChildren(...(msg.color === game.color ? [`You asked for ${OFFERS[msg.what]}; waiting for the answer.`]
      : [named(who), ` asks for ${OFFERS[msg.what]}` + (game.color ? ": accept or decline it." : ".")]));
    box.hidden = false;
    document.body.dataset.offer = msg.what + ":" + msg.color;
    delete document.body.dataset.declined;
  }
  const DECLINED = {draw: "the draw", takeback: "the takeback", rematch: "the rematch"};
  function declined(msg) {  // an offer declined stands no more: its offerer and the watchers see who declined
    delete game.offers[msg.what];
    const who = msg.color === "white" ? game.white : game.red;
    const mine = game.color && msg.color !== game.color;  // my offer, declined
    if (mine && msg.what !== "rematch") game.declinedMine[msg.what] = true;
    $("offer").replaceChildren(msg.color === game.color ? "You" : named(who), ` declined ${DECLINED[msg.what]}.`
      + (mine && msg.what !== "rematch" ? " Ask again after the next move." : ""));
    $("offer").hidden = false;
    delete document.body.dataset.offer;
    document.body.dataset.declined = msg.what + ":" + msg.color;
  }
  function clearOffers() {
    game.offers = {};
    game.declinedMine = {};
    $("offer").hidden = true;
    delete document.body.dataset.offer;
  }
  function ended() {
    if (new URLSearchParams(location.search).get("tv") && !game.color) {
      setTimeout(() => { location.href = "/tv"; }, 5000);  // TV goes on to the next game
    }
    game.over = true;
    clearInterval(awayTimer);
    $("claim").hidden = true;
    if (!game.offers.rematch) clearOffers();
    $("away").hidden = true;
    $("after").hidden = false;
    document.body.dataset.over = "1";
  }
  function onGameMessage(msg) {
    if (msg.type === "game" && msg.color && msg.game !== game.id && game.over) {
      location.href = "/game/" + msg.game;  // the rematch both asked for
      return;
    }
    if (msg.game !== game.id) return;
    if (msg.type === "away") { away(msg); return; }
    if (msg.type === "offer") { offered(msg); draw(); return; }
    if (msg.type === "declined") { declined(msg); draw(); return; }
    if (msg.type === "aborted") {
      ended();
      $("result").textContent = "No game: " + msg.reason;
      $("share").hidden = $("controls").hidden = true;
      return;
    }
    if (msg.type === "game") {
      const code = new URLSearchParams(location.search).get("code");
      $("join").hidden = !(code && !msg.color && !(msg.white && msg.red));
      if (msg.moves.length < game.moves.length) clearOffers();  // a takeback both agreed
      Object.assign(game, {settings: msg.settings, moves: msg.moves, color: msg.color, code: msg.code,
                           white: msg.white, red: msg.red, kind: msg.kind, rated: !!msg.rated});
      watching(msg.watchers);
      setClock(msg.clock);
      if (msg.color && msg.code && !(msg.white && msg.red)) {
        const link = `${location.origin}/game/${game.id}?code=${msg.code}`;
        $("share-link").textContent = link;
        $("share-code").textContent = msg.code;
        $("copy-link").hidden = !(navigator.clipboard && navigator.clipboard.writeText);
        $("share").hidden = false;
      } else $("share").hidden = true;
    } else if (msg.type === "played" && msg.ply === game.moves.length) {
      game.moves.push({col: msg.col, shape: msg.shape, ms: msg.ms});
      setClock(msg.clock);
      clearOffers();  // an offer stands until the next move
      watching(msg.watchers);
    } else if (msg.type === "result") {
      const r = msg.result;
      if (msg.clock) setClock(msg.clock);  // the clocks as the game ended
      ended();
      game.solution = r.solution;
      game.moves = r.moves.map((m) => ({col: m.col, shape: m.shape, ms: m.ms}));
      document.body.dataset.winner = r.winner;
      const title = (side) => side[0].toUpperCase() + side.slice(1);
      const loser = r.winner === "white" ? "red" : "white";
      if (r.winner === "draw") $("result").textContent = "Draw" + (r.detail ? ": " + r.detail : "");
      else {
        const how = r.forfeit ? [`) won: ${title(loser)} (`, named(typeof r[loser] === "string" ? r[loser] : r[loser].name),
          `) ${REASONS[r.forfeit] || r.forfeit.replace(/_/g, " ")}`] : [") won"];
        $("result").replaceChildren(`${title(r.winner)} (`, named(r.winner_name), ...how, r.resigned ? " by resignation" : "");
      }
    }
    draw();
  }
  const REASONS = doc.reasons || {};  // the server's words, as its finished page says them
  function replay() {  // a finished game's page steps through its moves
    Object.assign(game, {over: true, solution: doc.solution || [], step: game.moves.length});
    $("replay").hidden = false;
    const go = (step) => { game.step = Math.max(0, Math.min(game.moves.length, step)); draw(); };
    $("first").onclick = () => go(0);
    $("prev").onclick = () => go(game.step - 1);
    $("next").onclick = () => go(game.step + 1);
    $("last").onclick = () => go(game.moves.length);
    document.addEventListener("keydown", (e) => {
      const to = {ArrowLeft: game.step - 1, ArrowRight: game.step + 1, Home: 0, End: game.moves.length}[e.key];
      if (to === undefined || e.target.tagName === "INPUT") return;
      e.preventDefault();
      go(to);
    });
    draw();
  }
  function awaitReview() {  // the analysis being made: its part of the page, read again every 5 s
    const timer = setInterval(() => {
      fetch(location.pathname).then((r) => r.text()).then((html) => {
        const review = new DOMParser().parseFromString(html, "text/html").getElementById("review");
        if (!review || !review.querySelector("#accuracy")) return;
        clearInterval(timer);
        $("review").replaceChildren(...review.childNodes);
      }).catch(() => {});
    }, 5000);
  }
  function gamePage() {
    if (doc.state === "over") {
      document.body.dataset.over = "1";
      replay();
      if (doc.analysis === "queued") awaitReview();
      return;
    }
    setInterval(showClocks, 100);
    $("name").value = localStorage.getItem("csl-name") || "";
    $("name").addEventListener("input", keepName);
    $("take").onclick = () => {
      send({type: "hello", version: 1, name: playerName()});
      send({type: "join", code: new URLSearchParams(location.search).get("code")});
      $("join").hidden = true;
    };
    $("cancel").onclick = () => send({type: "cancel", game: game.id});
    $("copy-link").onclick = () => {  // the clipboard of a secure page (https, or this machine)
      navigator.clipboard.writeText($("share-link").textContent).then(
        () => { $("copied").textContent = "Copied"; },
        () => { $("copied").textContent = "Could not copy: select the link and copy it"; });
      setTimeout(() => { $("copied").textContent = ""; }, 3000);
    };
    const box = $("board");
    box.tabIndex = 0;
    $("round").onclick = () => { game.shape = "round"; draw(); };
    $("square").onclick = () => { game.shape = "square"; draw(); };
    $("resign").onclick = () => { if (confirm("Resign this game?")) send({type: "resign", game: game.id}); };
    for (const what of ["draw", "takeback", "rematch", "claim"]) {
      $(what).onclick = () => send({type: what, game: game.id});
    }
    for (const what of ["draw", "takeback", "rematch"]) {
      $("decline-" + what).onclick = () => send({type: what, game: game.id, decline: true});
    }
    // a button reached with Tab does its own Enter and Space; after a click they play
    let tabbed = false;
    document.addEventListener("pointerdown", () => { tabbed = false; }, true);
    document.addEventListener("keydown", (e) => { if (e.key === "Tab") tabbed = true; }, true);
    document.addEventListener("keydown", (e) => {
      if (!game.settings || e.target.tagName === "INPUT") return;
      if ((e.key === "Enter" || e.key === " ") && tabbed && e.target.tagName === "BUTTON") return;
      const cols = game.settings.cols;
      if (e.key === "ArrowLeft") game.col = (game.col + cols - 1) % cols;
      else if (e.key === "ArrowRight") game.col = (game.col + 1) % cols;
      else if (e.key === "r" || e.key === "R") game.shape = "round";
      else if (e.key === "s" || e.key === "S") game.shape = "square";
      else if (e.key === "ArrowUp" || e.key === "ArrowDown") game.shape = game.shape === "round" ? "square" : "round";
      else if (e.key === "Enter" || e.key === " ") { e.preventDefault(); play(); return; }
      else if (/^[0-9]$/.test(e.key) && Number(e.key) < cols) game.col = Number(e.key);
      else return;
      e.preventDefault();
      draw();
    });
    // a player's own game gives its seat back; anyone else watches (a link's
    // code then offers the free seat, under the name typed here)
    connect(() => send({type: "watch", game: game.id}), onGameMessage);
    draw();
  }

  if (page === "lobby") lobby(); else if (page === "game") gamePage();
  document.documentElement.setAttribute("data-ready", "");
})();
