// gpumemrepl's memory page: draws the JSON in #data (see plot.go).
(function () {
  'use strict';
  var t0 = performance.now();
  var D = JSON.parse(document.getElementById('data').textContent);
  var PALETTE = ['#2e7d32', '#3355cc', '#d4a017', '#d62728', '#444444', '#17a2b8', '#9370db', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#ff7f0e'];
  var STREAMS = ['#9ecae1', '#fdae6b', '#a1d99b', '#bcbddc', '#fdd0a2', '#c7e9c0'];
  var EV = Math.max(D.events, 1);
  function str(i) { return i >= 0 ? D.strings[i] : ''; }
  function color(c) { return PALETTE[c % PALETTE.length]; }
  // PyTorch's format_size
  function size(n) {
    if (n < 1024) return n + ' bytes';
    if (n < 1048576) return (n / 1024).toFixed(2) + ' KiB';
    if (n < 1073741824) return (n / 1048576).toFixed(2) + ' MiB';
    return (n / 1073741824).toFixed(2) + ' GiB';
  }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  // the step (point) an event of the record falls in: the first whose
  // mark is past it
  function stepOf(t) {
    var lo = 0, hi = D.steps.length;
    while (lo < hi) { var m = (lo + hi) >> 1; if (D.steps[m].mark > t) hi = m; else lo = m + 1; }
    return lo < D.steps.length ? lo : -1;
  }
  function stepName(i) {
    if (i < 0) return 'after the last step';
    var s = D.steps[i];
    var n = s.count > 1 ? 'steps ' + s.first + '-' + (s.first + s.count - 1) : 'step ' + s.first;
    return n + (s.count === 1 ? ' (' + s.label + ')' : '');
  }

  // Bands stacked as memory_viz stacks them: each new one on top of
  // those live, those above a freed one moving down into its place.
  function stack(items) {
    var ev = [];
    items.forEach(function (b, i) { ev.push([b.made, 1, i]); if (b.live === false) ev.push([b.freed, 0, i]); });
    ev.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
    var live = [], h = 0, tops = [[0, 0]], top = 0;
    ev.forEach(function (e) {
      var b = items[e[2]];
      if (e[1]) { b.xs = [e[0]]; b.bs = [h]; live.push(e[2]); h += b.size; }
      else {
        var k = live.indexOf(e[2]);
        live.splice(k, 1); h -= b.size;
        for (var j = k; j < live.length; j++) { var a = items[live[j]]; a.xs.push(e[0]); a.bs.push(a.bs[a.bs.length - 1] - b.size); }
      }
      tops.push([e[0], h]); top = Math.max(top, h);
    });
    return { tops: tops, top: top };
  }
  function baseAt(b, t) { // b's lower edge at time t
    var lo = 0, hi = b.xs.length - 1;
    while (lo < hi) { var m = (lo + hi + 1) >> 1; if (b.xs[m] <= t) lo = m; else hi = m - 1; }
    return b.bs[lo];
  }
  function heightAt(tops, t) {
    var lo = 0, hi = tops.length - 1;
    while (lo < hi) { var m = (lo + hi + 1) >> 1; if (tops[m][0] <= t) lo = m; else hi = m - 1; }
    return tops[lo][1];
  }

  var bands = D.bands.map(function (r, i) {
    return { i: i, addr: r[0], size: r[1], made: r[2], freed: r[3] < 0 ? EV : r[3], live: r[3] < 0, cat: r[4], name: str(r[5]), where: str(r[6]), stack: str(r[7]) };
  });
  var BL = stack(bands);
  var spans = D.spans.map(function (r) { return { addr: r[0], size: r[1], made: r[2], freed: r[3] < 0 ? EV : r[3], live: r[3] < 0, stream: r[4] }; });
  var SL = stack(spans);
  var per = D.rest.at.length ? Math.ceil(EV / D.rest.at.length) : EV;
  var restTotals = D.rest.bytes.map(function (c) { return c.reduce(function (a, b) { return a + b; }, 0); });
  var yTop = BL.top;
  D.rest.at.forEach(function (t, c) { yTop = Math.max(yTop, heightAt(BL.tops, t) + restTotals[c]); });
  D.steps.forEach(function (s) { yTop = Math.max(yTop, s.reserved, s.peak); });
  yTop = Math.max(yTop, 1);

  var view = { t0: 0, t1: EV }, pinned = null, selected = -1, hover = null;
  var L = 78, R = 12, T = 10, Bm = 26;

  function setup(cv) {
    var dpr = window.devicePixelRatio || 1, w = cv.clientWidth, h = cv.clientHeight;
    cv.width = Math.round(w * dpr); cv.height = Math.round(h * dpr);
    var g = cv.getContext('2d'); g.setTransform(dpr, 0, 0, dpr, 0, 0);
    return { g: g, w: w, h: h, x: function (t) { return L + (t - view.t0) / (view.t1 - view.t0) * (w - L - R); }, t: function (x) { return view.t0 + (x - L) / (w - L - R) * (view.t1 - view.t0); } };
  }
  function axes(c, top, label) {
    var g = c.g, base = c.h - Bm;
    g.strokeStyle = '#999'; g.fillStyle = '#444'; g.font = '11px sans-serif'; g.lineWidth = 1;
    g.beginPath(); g.moveTo(L, T); g.lineTo(L, base); g.lineTo(c.w - R, base); g.stroke();
    var grid = 1; while (grid * 5 < top) grid *= 2;
    g.textAlign = 'right';
    for (var v = 0; v <= top; v += grid) {
      var y = base - v / top * (base - T);
      g.fillText(size(v), L - 4, y + 4);
      g.strokeStyle = '#eee'; g.beginPath(); g.moveTo(L, y); g.lineTo(c.w - R, y); g.stroke();
    }
    // step numbers under the axis, at most ten, none over another (steps
    // that end close together in the history share a place)
    g.textAlign = 'center'; g.fillStyle = '#444';
    var vis = D.steps.filter(function (s) { return s.mark >= view.t0 && s.mark <= view.t1; });
    var every = Math.max(1, Math.ceil(vis.length / 10)), right = -Infinity;
    vis.forEach(function (s, i) {
      if (i % every !== 0) return;
      var text = String(s.first + s.count - 1), x = c.x(s.mark), half = g.measureText(text).width / 2;
      if (x - half < right + 6) return;
      g.fillText(text, x, base + 14); right = x + half;
    });
    g.fillText(label, (L + c.w - R) / 2, base + 24 > c.h ? c.h - 1 : base + 24);
    return function (v) { return base - v / top * (base - T); };
  }
  function drawBands(c, items, y, fill, outline) {
    var g = c.g;
    items.forEach(function (b) {
      if (b.freed < view.t0 || b.made > view.t1) return;
      var xs = b.xs, bs = b.bs, n = xs.length;
      var x0 = c.x(xs[0]), x1 = Math.max(c.x(b.freed), x0 + 1.5);
      g.beginPath(); g.moveTo(x0, y(bs[0]));
      for (var k = 1; k < n; k++) { g.lineTo(c.x(xs[k]), y(bs[k - 1])); g.lineTo(c.x(xs[k]), y(bs[k])); }
      g.lineTo(x1, y(bs[n - 1])); g.lineTo(x1, y(bs[n - 1] + b.size));
      for (k = n - 1; k >= 1; k--) { g.lineTo(c.x(xs[k]), y(bs[k] + b.size)); g.lineTo(c.x(xs[k]), y(bs[k - 1] + b.size)); }
      g.lineTo(x0, y(bs[0] + b.size)); g.closePath();
      g.fillStyle = fill(b); g.fill();
      if (b === pinned || b === hover) { g.strokeStyle = '#000'; g.lineWidth = 2; g.stroke(); g.lineWidth = 1; }
      else if (outline) { g.strokeStyle = 'rgba(255,255,255,.6)'; g.stroke(); }
    });
  }
  function marker(c) {
    if (selected < 0) return;
    var x = c.x(D.steps[selected].mark);
    c.g.strokeStyle = '#000'; c.g.setLineDash([4, 3]);
    c.g.beginPath(); c.g.moveTo(x, T); c.g.lineTo(x, c.h - Bm); c.g.stroke(); c.g.setLineDash([]);
  }

  var tl = document.getElementById('timeline'), st = document.getElementById('segtime');
  var TL, ST, yTL, ySeg, drag = null;
  function drawTimeline() {
    TL = setup(tl);
    var g = TL.g; g.clearRect(0, 0, TL.w, TL.h);
    yTL = axes(TL, yTop, 'step');
    g.save(); g.beginPath(); g.rect(L, 0, TL.w - L - R, TL.h); g.clip();
    drawBands(TL, bands, yTL, function (b) { return color(b.cat); }, true);
    // the allocations not drawn one by one, summed by category, on top
    D.rest.at.forEach(function (t, c) {
      var a = c * per, b = Math.min((c + 1) * per, EV);
      if (b < view.t0 || a > view.t1) return;
      var x0 = TL.x(a), x1 = Math.max(TL.x(b), x0 + 1), h = heightAt(BL.tops, t);
      D.rest.bytes[c].forEach(function (v, k) {
        if (!v) return;
        g.globalAlpha = 0.45; g.fillStyle = color(k);
        g.fillRect(x0, yTL(h + v), x1 - x0, yTL(h) - yTL(h + v)); g.globalAlpha = 1; h += v;
      });
    });
    // reserved, as a step line over the steps
    g.strokeStyle = '#ff7f0e'; g.lineWidth = 2; g.beginPath();
    var prev = 0, px = TL.x(0);
    g.moveTo(px, yTL(0));
    D.steps.forEach(function (s) { var x = TL.x(s.mark); g.lineTo(x, yTL(prev)); g.lineTo(x, yTL(s.reserved)); prev = s.reserved; });
    g.stroke(); g.lineWidth = 1;
    marker(TL);
    if (drag && drag.x1 !== undefined) { g.fillStyle = 'rgba(31,119,180,.15)'; g.fillRect(Math.min(drag.x0, drag.x1), T, Math.abs(drag.x1 - drag.x0), TL.h - Bm - T); }
    g.restore();
  }
  function drawSegTime() {
    ST = setup(st);
    var g = ST.g; g.clearRect(0, 0, ST.w, ST.h);
    ySeg = axes(ST, Math.max(SL.top, 1), spans.length ? 'step' : 'step (no segment history in this record)');
    g.save(); g.beginPath(); g.rect(L, 0, ST.w - L - R, ST.h); g.clip();
    drawBands(ST, spans, ySeg, function (s) { return STREAMS[s.stream % STREAMS.length]; }, true);
    marker(ST); g.restore();
  }
  function bandAt(c, items, y, mx, my) {
    var t = c.t(mx), v = (c.h - Bm - my) / (c.h - Bm - T) * (items === bands ? yTop : Math.max(SL.top, 1));
    for (var i = items.length - 1; i >= 0; i--) {
      var b = items[i];
      if (b.made <= t && t < b.freed) { var base = baseAt(b, t); if (v >= base && v < base + b.size) return b; }
    }
    return null;
  }
  function restAt(mx, my) {
    if (!D.rest.at.length) return null;
    var t = TL.t(mx), c = Math.min(Math.floor(t / per), D.rest.at.length - 1);
    if (c < 0) return null;
    var h = heightAt(BL.tops, D.rest.at[c]), v = (TL.h - Bm - my) / (TL.h - Bm - T) * yTop;
    return v >= h && v < h + restTotals[c] ? c : null;
  }
  function bandText(b) {
    var s = (b.name || 'unnamed') + '\n' + D.categories[b.cat] + ', ' + size(b.size) + ' (' + b.size + ' bytes) at 0x' + b.addr.toString(16) + '\n';
    s += 'made at ' + (b.where || 'no source line') + ', in ' + stepName(stepOf(b.made)) + '\n';
    s += b.live ? 'live at the end' : 'freed in ' + stepName(stepOf(b.freed));
    if (b.stack) s += '\nstack (innermost first):\n  ' + b.stack.split('\n').join('\n  ');
    return s;
  }
  function spanText(s) {
    return 'segment of ' + size(s.size) + ' at 0x' + s.addr.toString(16) + ', stream ' + s.stream + '\nmade in ' + stepName(stepOf(s.made)) + '\n' + (s.live ? 'held at the end' : 'released in ' + stepName(stepOf(s.freed)));
  }
  function restText(c) {
    var s = D.rest.count + ' smaller allocations are summed here (the page draws the ' + bands.length + ' largest one by one)\nat ' + stepName(stepOf(D.rest.at[c])) + ':';
    D.rest.bytes[c].forEach(function (v, k) { if (v) s += '\n  ' + D.categories[k] + ': ' + size(v); });
    return s;
  }
  var tip = document.getElementById('tip');
  function showTip(text, e) {
    if (!text) { tip.style.display = 'none'; return; }
    tip.textContent = text; tip.style.display = 'block';
    var x = e.clientX + 14, y = e.clientY + 14;
    if (x + tip.offsetWidth > window.innerWidth) x = Math.max(0, e.clientX - tip.offsetWidth - 8);
    if (y + tip.offsetHeight > window.innerHeight) y = Math.max(0, e.clientY - tip.offsetHeight - 8);
    tip.style.left = x + 'px'; tip.style.top = y + 'px';
  }
  function local(cv, e) { var r = cv.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; }
  tl.addEventListener('mousedown', function (e) { drag = { x0: local(tl, e)[0] }; });
  tl.addEventListener('mousemove', function (e) {
    var p = local(tl, e);
    if (drag && Math.abs(p[0] - drag.x0) > 4) { drag.x1 = p[0]; drawTimeline(); return; }
    var b = bandAt(TL, bands, yTL, p[0], p[1]);
    if (b !== hover) { hover = b; drawTimeline(); }
    var c = b ? null : restAt(p[0], p[1]);
    showTip(b ? bandText(b) : c !== null ? restText(c) : '', e);
  });
  tl.addEventListener('mouseleave', function () { showTip(''); if (hover) { hover = null; drawTimeline(); } });
  window.addEventListener('mouseup', function (e) {
    if (!drag) return;
    var d = drag; drag = null;
    if (d.x1 !== undefined) {
      var a = TL.t(Math.min(d.x0, d.x1)), b = TL.t(Math.max(d.x0, d.x1));
      if (b - a >= 1) { view.t0 = Math.max(0, a); view.t1 = Math.min(EV, b); }
      redraw(); return;
    }
    if (e.target !== tl) return;
    var p = local(tl, e);
    var hit = bandAt(TL, bands, yTL, p[0], p[1]);
    pinned = hit === pinned ? null : hit;
    detail(); drawTimeline();
  });
  st.addEventListener('mousemove', function (e) {
    var p = local(st, e), s = bandAt(ST, spans, ySeg, p[0], p[1]);
    showTip(s ? spanText(s) : '', e);
  });
  st.addEventListener('mouseleave', function () { showTip(''); });

  function detail() {
    var d = document.getElementById('detail');
    if (pinned) { d.textContent = 'pinned (click it again to unpin):\n' + bandText(pinned); return; }
    if (selected >= 0) {
      var s = D.steps[selected];
      var t = stepName(selected) + '\nafter it: allocated ' + size(s.allocated) + ', reserved ' + size(s.reserved) + (s.driver !== undefined ? ', driver-used ' + size(s.driver) : '');
      if (s.peak > s.allocated) t += '\npeak inside: ' + size(s.peak);
      var live = bands.filter(function (b) { return b.made < s.mark && b.freed >= s.mark; }).sort(function (a, b) { return b.size - a.size; }).slice(0, 8);
      if (live.length) t += '\nlargest live after it:\n' + live.map(function (b) { return '  ' + size(b.size) + '  ' + (b.name || 'unnamed') + ' (' + D.categories[b.cat] + ', ' + (b.where || '?') + ')'; }).join('\n');
      d.textContent = t; return;
    }
    d.textContent = 'Click a band to pin it, a step to see the state after it.';
  }
  function select(i) {
    selected = i;
    var lis = document.querySelectorAll('#steps li');
    lis.forEach(function (li, k) { li.classList.toggle('sel', k === i); });
    detail(); drawTimeline(); drawSegTime(); drawMap();
  }
  // the segments and blocks at the selected step (exact where every
  // allocation is drawn one by one and the record has its segments),
  // else at the end
  function drawMap() {
    var cv = document.getElementById('segmap'), title = document.getElementById('segments-title');
    var rows = [], at = null;
    if (selected >= 0 && spans.length && D.rest.count === 0) {
      at = D.steps[selected].mark;
      spans.forEach(function (s) {
        if (s.made < at && s.freed >= at) {
          rows.push({ addr: s.addr, size: s.size, stream: s.stream, blocks: bands.filter(function (b) { return b.made < at && b.freed >= at && b.addr >= s.addr && b.addr < s.addr + s.size; }).map(function (b) { return [b.addr - s.addr, b.size, 1, b]; }) });
        }
      });
      title.textContent = 'Segments after ' + stepName(selected);
    } else {
      rows = D.segments.map(function (s) { return { addr: s.addr, size: s.size, stream: s.stream, small: s.small, blocks: s.blocks }; });
      title.textContent = 'Segments ' + D.segments_at;
    }
    cv.style.height = Math.max(30, rows.length * 18 + 8) + 'px';
    var dpr = window.devicePixelRatio || 1, w = cv.clientWidth, h = cv.clientHeight;
    cv.width = Math.round(w * dpr); cv.height = Math.round(h * dpr);
    var g = cv.getContext('2d'); g.setTransform(dpr, 0, 0, dpr, 0, 0); g.clearRect(0, 0, w, h);
    var biggest = 1; rows.forEach(function (r) { biggest = Math.max(biggest, r.size); });
    g.font = '11px sans-serif';
    rows.forEach(function (r, i) {
      var y = i * 18 + 4, span = w - 160;
      g.fillStyle = '#444'; g.textAlign = 'right'; g.fillText(size(r.size), 150, y + 11);
      g.fillStyle = '#dbe9f6'; g.fillRect(156, y, r.size / biggest * span, 14);
      r.blocks.forEach(function (b) {
        if (b[2] === 0) return;
        g.fillStyle = b[3] ? color(b[3].cat) : b[2] === 2 ? '#f0a030' : '#1f77b4';
        g.fillRect(156 + b[0] / biggest * span, y, Math.max(b[1] / biggest * span, 0.7), 14);
      });
    });
    cv.dataset.rows = rows.length;
  }
  function redraw() { drawTimeline(); drawSegTime(); drawMap(); }

  // the page's text: summary, legend, toolbar, steps, breakdown
  var sum = D.allocs + ' allocations over ' + D.events + ' events of the record, ' + D.steps.reduce(function (a, s) { return a + s.count; }, 0) + ' steps';
  if (D.step_span > 1) sum += ' (the list holds ' + D.steps.length + ' points, each the peak of ' + D.step_span + ' steps)';
  sum += '. ' + (D.rest.count ? 'The ' + bands.length + ' largest allocations are drawn one by one; the other ' + D.rest.count + ' are summed by category in ' + D.rest.at.length + ' columns (each at the instant its stretch of time held most of them), drawn lighter on top.' : 'Every allocation is drawn.');
  if (D.note) sum += ' ' + D.note;
  document.getElementById('summary').textContent = sum;
  var legend = document.getElementById('legend');
  D.categories.forEach(function (c, k) {
    var s = el('span'); var i = el('i'); i.style.background = color(k); s.appendChild(i); s.appendChild(document.createTextNode(c)); legend.appendChild(s);
  });
  var s = el('span'); var i = el('i'); i.style.background = '#ff7f0e'; s.appendChild(i); s.appendChild(document.createTextNode('reserved')); legend.appendChild(s);
  var tb = document.getElementById('toolbar');
  var reset = el('button', { id: 'reset-zoom' }, 'whole run');
  reset.onclick = function () { view.t0 = 0; view.t1 = EV; redraw(); };
  var out = el('button', { id: 'zoom-out' }, 'zoom out');
  out.onclick = function () { var w = view.t1 - view.t0; view.t0 = Math.max(0, view.t0 - w / 2); view.t1 = Math.min(EV, view.t1 + w / 2); redraw(); };
  tb.appendChild(reset); tb.appendChild(out);
  var ol = document.getElementById('steps');
  D.steps.forEach(function (s, k) {
    var li = el('li', { title: s.label });
    li.appendChild(document.createTextNode((s.count > 1 ? s.first + '-' + (s.first + s.count - 1) + ' ' : '') + s.label));
    li.appendChild(el('span', { 'class': 'fig' }, size(s.allocated) + (s.peak > s.allocated ? ' (peak ' + size(s.peak) + ')' : '')));
    li.onclick = function () { select(k === selected ? -1 : k); };
    ol.appendChild(li);
  });
  var bd = D.breakdown, box = document.getElementById('breakdown');
  if (bd) {
    box.appendChild(el('h2', {}, 'The peak explained: ' + bd.device + ', ' + size(bd.allocated_bytes) + ' allocated' + (bd.where ? ' at ' + bd.where : '') + (bd.step ? ', during line ' + bd.step : '')));
    var table = function (head, rows) {
      var t = el('table'), tr = el('tr');
      head.forEach(function (h) { tr.appendChild(el('th', {}, h)); }); t.appendChild(tr);
      rows.forEach(function (r) { var tr = el('tr'); r.forEach(function (v, k) { var td = el('td', k > 0 && /^[0-9.]/.test(String(v)) ? { 'class': 'n' } : {}, String(v)); tr.appendChild(td); }); t.appendChild(tr); });
      box.appendChild(t);
    };
    table(['by category', 'bytes', 'share', 'blocks'], bd.categories.map(function (c) { return [c.category, size(c.bytes), (100 * c.bytes / bd.allocated_bytes).toFixed(1) + '%', c.blocks]; }).concat([['cache (reserved, not allocated)', size(bd.cache.bytes), bd.cache.free_blocks + ' free blocks', 'largest ' + size(bd.cache.largest_free_bytes)]]));
    table(['by source line', 'bytes', 'blocks'], bd.lines.map(function (g) { return [g.name, size(g.bytes), g.blocks]; }));
    table(['by name', 'bytes', 'blocks'], bd.names.map(function (g) { return [g.name, size(g.bytes), g.blocks]; }));
    table(['largest holders', 'bytes', 'category', 'what frees it'], bd.holders.map(function (h) { return [(h.name ? h.name + ' ' : '') + '(' + h.line + ')', size(h.bytes), h.category, h.freed_by]; }));
  }
  redraw(); detail();
  window.addEventListener('resize', redraw);
  // for tests and tools: where things are drawn
  window.gpumem = {
    bands: bands.length,
    steps: D.steps.length,
    bandPoint: function (i) {
      var b = bands[i], r = tl.getBoundingClientRect(), t = (b.made + Math.min(b.freed, b.xs.length > 1 ? b.xs[1] : b.freed)) / 2;
      return { x: r.left + TL.x(t), y: r.top + yTL(baseAt(b, t) + b.size / 2) };
    },
    tip: function () { return tip.style.display === 'none' ? '' : tip.textContent; },
    detail: function () { return document.getElementById('detail').textContent; },
    view: function () { return [view.t0, view.t1]; },
    liveBytes: function (mark, round) { round = round || 1; return bands.reduce(function (a, b) { return a + (b.made < mark && b.freed >= mark ? Math.ceil(b.size / round) * round : 0); }, 0); },
    marks: function () { return D.steps.map(function (s) { return s.mark; }); },
    ms: performance.now() - t0
  };
  document.body.dataset.ready = '1';
})();
