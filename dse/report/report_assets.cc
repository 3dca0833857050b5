#include "dse/report/report_assets.h"

namespace ttsim::dse {

const char* const kReportCss = R"css(
body{font-family:system-ui,sans-serif;margin:0 auto;max-width:1240px;padding:0 16px 40px;color:#222;line-height:1.4}
h1{margin:18px 0 4px}h2{margin-top:32px;border-bottom:1px solid #ddd;padding-bottom:4px}
nav a{margin-right:12px}
dl.kv{display:grid;grid-template-columns:max-content auto;gap:3px 16px;margin:8px 0}
dl.kv dt{font-weight:600;color:#444}dl.kv dd{margin:0}
.why{background:#eef6ee;border-left:4px solid #228833;padding:8px 12px}
.note{color:#7a4b00}
.scroll{overflow:auto;max-height:640px;border:1px solid #ddd}
table{border-collapse:collapse;font-size:12.5px}
th,td{padding:3px 8px;border-bottom:1px solid #eee;text-align:right;white-space:nowrap}
td.t,th.t{text-align:left}td.reason{white-space:normal;min-width:260px;text-align:left}
thead th{position:sticky;top:0;background:#f3f3f3;cursor:pointer;user-select:none;vertical-align:bottom}
thead th small{display:block;font-weight:400;color:#666}
thead th[aria-sort=ascending]::after{content:" \25B2"}thead th[aria-sort=descending]::after{content:" \25BC"}
#references-table th,#references-table td{padding:3px 5px}
#references-table th{white-space:normal;overflow-wrap:anywhere;min-width:48px}
#references-table td.t{white-space:normal}#references-table td.t:first-child{min-width:120px}
#references-table td.reason{min-width:170px}
#points tbody td:first-child{position:sticky;left:0;z-index:1;background:#fff;box-shadow:inset -1px 0 0 #ccc}
#points thead th:first-child{left:0;z-index:3;box-shadow:inset -1px 0 0 #ccc}
tr.ref td,#points tr.ref td:first-child{background:#fbeaea}
tr.chosen td,#points tr.chosen td:first-child{background:#e3f2e3}tr.infeasible td{color:#888}
figure{margin:16px 0;border:1px solid #ddd;padding:8px}figure img{max-width:100%;height:auto;display:block}
figcaption{font-size:13px;color:#444;margin-top:6px}
.controls{margin:8px 0}.controls input[type=search]{width:280px}
)css";

const char* const kReportScript = R"js(
(function () {
  'use strict';
  function cellKey(td, numeric) {
    var v = td.getAttribute('data-v');
    if (v === null) v = td.textContent;
    if (numeric) return v === '' ? NaN : parseFloat(v);
    return v.toLowerCase();
  }
  function sortTable(table, col, th) {
    var numeric = th.getAttribute('data-type') === 'num';
    var ascending = th.getAttribute('aria-sort') !== 'ascending';
    var heads = table.tHead.rows[0].cells;
    for (var h = 0; h < heads.length; h++) heads[h].removeAttribute('aria-sort');
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.forEach(function (r, i) { r._order = i; });
    rows.sort(function (a, b) {
      var x = cellKey(a.cells[col], numeric), y = cellKey(b.cells[col], numeric);
      var c;
      if (numeric) {
        var xn = isNaN(x), yn = isNaN(y);
        if (xn || yn) return xn === yn ? a._order - b._order : (xn ? 1 : -1);
        c = x - y;
      } else {
        c = x < y ? -1 : (x > y ? 1 : 0);
      }
      if (!ascending) c = -c;
      return c !== 0 ? c : a._order - b._order;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
  }
  // The words of a text: runs of letters, digits and _ . , % + - with leading and trailing
  // punctuation dropped; a grouped number also counts without its commas ("1,264", "1264").
  function tokens(text) {
    var out = [];
    text.toLowerCase().split(/[^a-z0-9_.,%+\-]+/).forEach(function (t) {
      t = t.replace(/^[.,]+|[.,]+$/g, '');
      if (!t) return;
      out.push(t);
      if (/^[0-9][0-9,]*(\.[0-9]+)?$/.test(t) && t.indexOf(',') >= 0) out.push(t.replace(/,/g, ''));
    });
    return out;
  }
  function rowTokens(row) {
    if (!row._tokens) {
      var set = {};
      Array.prototype.forEach.call(row.cells, function (td) {
        tokens(td.textContent).forEach(function (t) { set[t] = true; });
      });
      row._tokens = set;
    }
    return row._tokens;
  }
  function applyFilter(id) {
    var table = document.getElementById(id);
    if (!table) return;
    var box = document.querySelector('[data-filter="' + id + '"]');
    var feasibleOnly = document.querySelector('[data-feasible-only="' + id + '"]');
    var words = box ? tokens(box.value) : [];
    var shown = 0, rows = table.tBodies[0].rows;
    for (var i = 0; i < rows.length; i++) {
      var have = rowTokens(rows[i]);
      var ok = words.every(function (w) { return have[w] === true; });
      if (feasibleOnly && feasibleOnly.checked && rows[i].getAttribute('data-feasible') !== '1') ok = false;
      rows[i].style.display = ok ? '' : 'none';
      if (ok) shown++;
    }
    var count = document.querySelector('[data-count="' + id + '"]');
    if (count) count.textContent = shown + ' of ' + rows.length + ' rows shown';
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      th.tabIndex = 0;
      th.title = (th.title ? th.title + ' \u2014 ' : '') + 'click to sort by this column';
      th.addEventListener('click', function () { sortTable(table, col, th); });
      th.addEventListener('keydown', function (e) {
        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sortTable(table, col, th); }
      });
    });
    applyFilter(table.id);
  });
  Array.prototype.forEach.call(document.querySelectorAll('[data-filter],[data-feasible-only]'), function (el) {
    var id = el.getAttribute('data-filter') || el.getAttribute('data-feasible-only');
    el.addEventListener('input', function () { applyFilter(id); });
    el.addEventListener('change', function () { applyFilter(id); });
  });
})();
)js";

}  // namespace ttsim::dse
