// The report's one script (embedded by tools/embed.py; the page's
// Content-Security-Policy lets it run by its hash). It reads the data block
// #report-data (core/report/report-slider.c says what a row holds) and
// drives two things: the k slider, recomputing P@k, R@k, Success@k, RR and
// nDCG@k with the arithmetic of report_cutoff_measures, and the question
// table, searched, filtered and sorted here, shown a page of rows at a
// time. It writes to the page with textContent only.
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('report-data').textContent);
  var Q = D.q, C = D.chunks, KEYS = ['P', 'R', 'S', 'RR', 'nDCG'], PAGE = 50;
  // a row: [id, text, subsets, status, before, after, num_rel, ideal,
  //         grades, ids, relevant chunk, baseline's top, candidate's top, more relevant]
  var ID = 0, TEXT = 1, SUBS = 2, STATUS = 3, BEFORE = 4, AFTER = 5, NUMREL = 6, IDEAL = 7,
      GRADES = 8, IDS = 9, REL = 10, BTOP = 11, CTOP = 12, MORE = 13;
  var $ = function (id) { return document.getElementById(id); };
  function grades(s) {
    var g = [];
    for (var i = 0; i < s.length; i++) g.push(s[i] === '-' ? -1 : s.charCodeAt(i) - 48);
    return g;
  }
  function measures(q, k) {
    var g = grades(q[GRADES]), ideal = grades(q[IDEAL]), rel = 0, dcg = 0, idcg = 0, i;
    for (i = 0; i < g.length && i < k; i++)
      if (g[i] >= 1) { rel++; dcg += g[i] / Math.log2(i + 2); }
    for (i = 0; i < ideal.length && i < k; i++) idcg += ideal[i] / Math.log2(i + 2);
    var n = q[NUMREL], f = q[AFTER];
    return [rel / k, n > 0 ? rel / n : 0, rel > 0 ? 1 : 0, f > 0 ? 1 / f : 0, idcg > 0 ? dcg / idcg : 0];
  }
  function put(row, v) {
    for (var j = 0; j < 5; j++) {
      var e = $(row + '-' + KEYS[j]);
      e.textContent = v[j].toFixed(4);
      e.setAttribute('data-value', String(v[j]));
    }
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // ---- the k slider and the question shown at the cutoff ----
  var slider = $('k'), cur = D.chosen;
  function list(q, k) {
    var ol = $('ranked'), g = grades(q[GRADES]);
    if (!ol) return;
    while (ol.firstChild) ol.removeChild(ol.firstChild);
    for (var i = 0; i < q[IDS].length; i++) {
      var li = el('li', (g[i] >= 1 ? 'rel' : '') + (i >= k ? ' cut' : ''),
                  q[IDS][i] < 0 ? '(id not kept)' : C[q[IDS][i]]);
      if (g[i] >= 1) li.appendChild(el('b', '', ' relevant, grade ' + g[i]));
      else if (g[i] < 0) li.appendChild(el('i', '', ' unjudged'));
      if (i >= k) li.appendChild(el('small', '', ' (below k)'));
      ol.appendChild(li);
    }
    if (!q[IDS].length) ol.appendChild(el('li', 'cut', '(nothing retrieved)'));
  }
  function update() {
    var k = parseInt(slider.value, 10), s = [0, 0, 0, 0, 0], i, j, v;
    $('k-value').textContent = String(k);
    $('k-print').textContent = String(k);
    for (i = 0; i < Q.length; i++) { v = measures(Q[i], k); for (j = 0; j < 5; j++) s[j] += v[j]; }
    for (j = 0; j < 5; j++) s[j] = Q.length ? s[j] / Q.length : 0;
    put('set', s);
    if (!Q.length) return;
    var q = Q[cur];
    put('q', measures(q, k));
    list(q, k);
    $('q-id').textContent = q[ID];
    $('q-text').textContent = q[TEXT];
    $('q-facts').textContent = q[NUMREL] + ' relevant; first relevant at rank ' + q[AFTER];
  }
  // show question 'i' at the cutoff; 'focus': move there
  function choose(i, focus) {
    cur = i;
    update();
    if (focus) {
      $('q-text').focus();
      $('cutoff').scrollIntoView({ block: 'start' });
    }
  }
  slider.addEventListener('input', update);

  // ---- the question table ----
  var search = $('qt-search'), status = $('qt-status'), subset = $('qt-subset'), sort = $('qt-sort');
  var tbody = document.querySelector('#qtable tbody'), count = $('qt-count');
  var prev = $('qt-prev'), next = $('qt-next');
  var base = D.base, order = [], page = 0;
  var RANK = { lost: 0, gained: 1, never: 2, both: 3, found: 3 };
  var BECAME = { lost: 'lost', gained: 'gained', never: 'never found', both: 'found by both', found: 'found' };
  var headers = Array.prototype.map.call(document.querySelectorAll('#qtable thead th'),
                                         function (th) { return th.textContent; });
  D.subsets.forEach(function (name, i) {
    var o = el('option', '', name);
    o.value = String(i);
    subset.appendChild(o);
  });
  // a rank as the page sorts it: none retrieved counts as below the depth
  function r(x) { return x > 0 ? x : D.depth + 1; }
  function change(q) { return r(q[BEFORE]) - r(q[AFTER]); }
  var lower = Q.map(function (q) {
    return (q[ID] + '\n' + q[TEXT] + '\n' + (q[REL] >= 0 ? C[q[REL]] : '')).toLowerCase();
  });
  function refilter() {
    var words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    var st = status.value, sub = subset.value === '' ? -1 : parseInt(subset.value, 10);
    order = [];
    for (var i = 0; i < Q.length; i++) {
      var q = Q[i];
      if (st === 'changed' ? q[STATUS] !== 'lost' && q[STATUS] !== 'gained' : st && q[STATUS] !== st)
        continue;
      if (sub >= 0 && q[SUBS].indexOf(sub) < 0) continue;
      var ok = true;
      for (var w = 0; w < words.length && ok; w++) ok = lower[i].indexOf(words[w]) >= 0;
      if (ok) order.push(i);
    }
    var by = sort.value;
    order.sort(function (a, b) {
      var x = Q[a], y = Q[b], d = 0;
      if (by === 'status') d = RANK[x[STATUS]] - RANK[y[STATUS]];
      else if (by === 'drop') d = change(x) - change(y);
      else if (by === 'rise') d = change(y) - change(x);
      else if (by === 'after') d = r(x[AFTER]) - r(y[AFTER]);
      else if (by === 'before') d = r(x[BEFORE]) - r(y[BEFORE]);
      return d || (x[ID] < y[ID] ? -1 : x[ID] > y[ID] ? 1 : 0);
    });
    page = 0;
    draw();
  }
  function rank(x) { return x > 0 ? String(x) : '\u2013'; }
  function chunkCell(i, label) {
    var td = el('td', 'chunk');
    td.setAttribute('data-label', label);
    if (i < 0) { td.textContent = '(none)'; return td; }
    td.appendChild(el('code', '', C[i]));
    var s = D.snips[String(i)];
    if (s) { td.appendChild(el('br')); td.appendChild(el('span', 'snippet', s)); }
    return td;
  }
  function cell(tr, cls, text, label) {
    var td = el('td', cls, text);
    td.setAttribute('data-label', label);
    tr.appendChild(td);
    return td;
  }
  function draw() {
    var pages = Math.max(1, Math.ceil(order.length / PAGE));
    if (page >= pages) page = pages - 1;
    var from = page * PAGE, to = Math.min(order.length, from + PAGE);
    var rows = document.createDocumentFragment();
    for (var n = from; n < to; n++) {
      var i = order[n], q = Q[i], h = 0, tr = el('tr', q[STATUS]);
      tr.setAttribute('data-id', q[ID]);
      var td = el('td');
      var b = el('button', 'pick', q[ID]);
      b.type = 'button';
      b.setAttribute('data-index', String(i));
      b.setAttribute('aria-label', q[ID] + ': show at the cutoff');
      td.appendChild(b);
      tr.appendChild(td);
      h++;
      td = cell(tr, 'qtext', q[TEXT], headers[h++]);
      var subs = q[SUBS].map(function (s) { return D.subsets[s]; }).join(', ');
      if (subs) td.appendChild(el('div', 'subs', subs));
      cell(tr, 'became', BECAME[q[STATUS]], headers[h++]);
      if (base) cell(tr, 'n', rank(q[BEFORE]), headers[h++]);
      cell(tr, 'n', rank(q[AFTER]), headers[h++]);
      if (base) {
        var c = change(q);
        var text = !(q[BEFORE] > 0) && !(q[AFTER] > 0) ? '\u2013' : !(q[BEFORE] > 0) ? 'from none'
                 : !(q[AFTER] > 0) ? 'to none' : (c > 0 ? '+' : c < 0 ? '\u2212' : '') + Math.abs(c);
        cell(tr, 'n', text, headers[h++]).setAttribute('data-value', String(c));
      }
      td = chunkCell(q[REL], headers[h++]);
      if (q[MORE] > 0) td.appendChild(el('div', 'subs', '+' + q[MORE] + ' more relevant'));
      tr.appendChild(td);
      if (base) tr.appendChild(chunkCell(q[BTOP], headers[h++]));
      tr.appendChild(chunkCell(q[CTOP], headers[h++]));
      rows.appendChild(tr);
    }
    while (tbody.firstChild) tbody.removeChild(tbody.firstChild);
    tbody.appendChild(rows);
    count.textContent = order.length
      ? 'Questions ' + (from + 1) + '\u2013' + to + ' of ' + order.length +
        (order.length < Q.length ? ' (of ' + Q.length + ')' : '') + ', page ' + (page + 1) + ' of ' + pages
      : 'No question matches (of ' + Q.length + ').';
    prev.disabled = page === 0;
    next.disabled = page >= pages - 1;
  }
  search.addEventListener('input', refilter);
  status.addEventListener('change', refilter);
  subset.addEventListener('change', refilter);
  sort.addEventListener('change', refilter);
  prev.addEventListener('click', function () { if (page > 0) { page--; draw(); } });
  next.addEventListener('click', function () { page++; draw(); });
  tbody.addEventListener('click', function (e) {
    var b = e.target.closest('button.pick');
    if (b) choose(parseInt(b.getAttribute('data-index'), 10), true);
  });
  // previous / next question at the cutoff: in the table's order (all of
  // its pages), or the data's when the question is not in it
  function step(d) {
    if (!Q.length) return;
    var at = order.indexOf(cur);
    if (at >= 0 && order.length) choose(order[(at + d + order.length) % order.length], false);
    else choose((cur + d + Q.length) % Q.length, false);
  }
  $('q-prev').addEventListener('click', function () { step(-1); });
  $('q-next').addEventListener('click', function () { step(1); });
  refilter();
})();
