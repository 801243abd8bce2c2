// The dashboard's page: one HTML shell, its stylesheet and its script, all inside the executable (no CDN, works offline).
// The script builds the DOM with textContent (never HTML from data) except the map's SVG, which render/graph-svg.ts escapes.

import type { AppRow } from './view.js';
import { HEALTH_SYMBOL } from '../render/graph.js';

/** Text for HTML: the five characters that could open markup or end an attribute. */
function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const SYNC_SYMBOL: Record<string, string> = { Synced: '\u2713', OutOfSync: '\u26a0' };

function badge(axis: 'health' | 'sync', value: string): string {
  const v = value || 'Unknown';
  const symbol = (axis === 'health' ? (HEALTH_SYMBOL as Record<string, string>) : SYNC_SYMBOL)[v] ?? '?';
  return `<span class="badge ${axis}-${escapeHtml(v)}" data-${axis}="${escapeHtml(v)}">${symbol} ${escapeHtml(v)}</span>`;
}

/**
 * The list of Applications as the page's script draws it (same columns, badges and data attributes), rendered here so
 * the first paint holds the data: a screenshot taken at load, or a browser without scripts, shows it. The script
 * replaces it with the live, filterable table.
 */
export function listHtml(list: { apps: readonly AppRow[]; loading: boolean }): string {
  const rows = list.apps.map((a) => {
    const href = `#/app/${encodeURIComponent(a.namespace)}/${encodeURIComponent(a.name)}`;
    const dest = `${a.destination.server ?? a.destination.name ?? ''}${a.destination.namespace ? ` (${a.destination.namespace})` : ''}`;
    const last = a.lastSync ? a.lastSync.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC') : '';
    const reason = a.error || a.reason || (a.comparedAt ? '' : 'comparing\u2026');
    const cells = [
      `<a href="${escapeHtml(href)}">${escapeHtml(a.name)}</a>`,
      escapeHtml(a.namespace),
      escapeHtml(a.project),
      badge('sync', a.sync),
      badge('health', a.health),
    ];
    return `<tr data-app="${escapeHtml(a.id)}">${cells.map((c) => `<td>${c}</td>`).join('')}<td class="mono">${escapeHtml(a.revision ? a.revision.slice(0, 7) : '')}</td><td>${escapeHtml(dest)}</td><td>${escapeHtml(last)}</td><td class="${a.error ? 'error' : 'reason'}">${escapeHtml(reason)}</td></tr>`;
  });
  const head = ['Name', 'Namespace', 'Project', 'Sync', 'Health', 'Revision', 'Destination', 'Last sync', 'Reason'].map((h) => `<th>${h}</th>`).join('');
  const count = `${list.apps.length} applications${list.loading ? ' (comparing\u2026)' : ''}`;
  return `<div class="filter"><span id="count">${count}</span></div>\n<table id="apps"><thead><tr>${head}</tr></thead><tbody>\n${rows.join('\n')}\n</tbody></table>`;
}

/**
 * The shell; the token (hex) rides on the asset URLs because every request needs it. `first`: what <main> shows before
 * the script has drawn anything (the server's rendering of the list).
 */
export function pageHtml(token: string, first = '<p>Loading\u2026</p>'): string {
  const t = encodeURIComponent(token);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>kubectl gitops dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/page.css?token=${t}">
</head>
<body>
<header><a href="#/" class="brand">kubectl gitops</a> <span class="sub">dashboard (read-only)</span><span id="live" class="live" aria-live="polite">connecting…</span></header>
<main id="main">${first}</main>
<script src="/assets/page.js?token=${t}"></script>
</body>
</html>
`;
}

export const PAGE_CSS = `
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 Helvetica, Arial, sans-serif; color: #111827; background: #f9fafb; }
header { display: flex; gap: 12px; align-items: baseline; padding: 10px 16px; background: #1f2937; color: #f9fafb; }
header a { color: #f9fafb; text-decoration: none; font-weight: bold; }
header .sub { color: #d1d5db; }
header .live { margin-left: auto; font-size: 12px; color: #d1d5db; }
main { padding: 16px; }
table { border-collapse: collapse; background: #fff; width: 100%; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid #e5e7eb; vertical-align: top; }
th { background: #f3f4f6; font-size: 12px; text-transform: uppercase; color: #374151; }
td.mono, .mono { font-family: Menlo, Consolas, monospace; font-size: 12px; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: bold; border: 1px solid; white-space: nowrap; }
.health-Healthy { background: #dcfce7; color: #14532d; border-color: #15803d; }
.health-Progressing { background: #dbeafe; color: #1e3a8a; border-color: #1d4ed8; }
.health-Suspended { background: #f3e8ff; color: #581c87; border-color: #7e22ce; }
.health-Missing { background: #fef9c3; color: #713f12; border-color: #a16207; }
.health-Degraded { background: #fee2e2; color: #7f1d1d; border-color: #b91c1c; }
.health-Unknown, .sync-Unknown { background: #f3f4f6; color: #1f2937; border-color: #4b5563; }
.sync-Synced { background: #dcfce7; color: #14532d; border-color: #15803d; }
.sync-OutOfSync { background: #ffedd5; color: #7c2d12; border-color: #c2410c; }
.filter { margin: 0 0 12px; display: flex; gap: 8px; align-items: center; }
.filter input { flex: 1; max-width: 480px; padding: 6px 8px; font-size: 14px; }
.error { color: #991b1b; }
.reason { color: #374151; font-size: 12px; }
.app-head { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; margin-bottom: 8px; }
.app-head h1 { font-size: 18px; margin: 0; }
.layout { display: grid; grid-template-columns: minmax(0, 1fr) minmax(320px, 32%); gap: 16px; align-items: start; }
#map { overflow: auto; max-height: calc(100vh - 150px); background: #fff; border: 1px solid #e5e7eb; }
#map svg { display: block; }
#detail { max-height: calc(100vh - 150px); overflow: auto; background: #fff; border: 1px solid #e5e7eb; padding: 12px; }
#detail h2 { font-size: 16px; margin: 0 0 4px; }
/* A cell wraps where the page put a <wbr> (a path after a dot or slash and before a [selector]; a value also after
   : , - =) and at spaces; inside a word only when one word alone is wider than the whole table can give it. */
#fields td { overflow-wrap: break-word; }
.map-tools { display: flex; gap: 4px; margin-bottom: 4px; }
#map.panning { cursor: grabbing; }
#map g.node { cursor: pointer; }
#map g.node:focus rect:first-of-type, #map g.node.selected rect:first-of-type { stroke: #111827; stroke-width: 4; }
pre { background: #f3f4f6; padding: 8px; overflow: auto; font-size: 12px; }
tr.verdict-drift td, tr.verdict-removed td { background: #fee2e2; }
tr.verdict-conflict td { background: #fae8ff; }
tr.verdict-ignored td { color: #6b7280; }
button { font-size: 13px; padding: 4px 10px; }
.warn { color: #92400e; font-size: 12px; }
`;

export const PAGE_JS = `
(function () {
  'use strict';
  var token = new URLSearchParams(location.search).get('token') || '';
  var HEALTH = { Healthy: '\\u2665', Progressing: '\\u25cc', Suspended: '\\u23f8', Missing: '\\u2205', Degraded: '\\u2716', Unknown: '?' };
  var SYNC = { Synced: '\\u2713', OutOfSync: '\\u26a0', Unknown: '?' };
  var state = { page: '', appId: '', selectedKey: '', filter: '', apps: [], view: null, zoom: 1, zoomApp: '' };
  var main = document.getElementById('main');

  function withToken(path) { return path + (path.indexOf('?') < 0 ? '?' : '&') + 'token=' + encodeURIComponent(token); }
  function api(path, method) {
    return fetch(withToken(path), { method: method || 'GET', cache: 'no-store' }).then(function (r) {
      if (!r.ok) return r.json().then(function (b) { throw new Error(b.error || ('HTTP ' + r.status)); });
      return r.json();
    });
  }
  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) {
      if (k === 'text') e.textContent = attrs[k];
      else if (k.slice(0, 2) === 'on') e.addEventListener(k.slice(2), attrs[k]);
      else e.setAttribute(k, attrs[k]);
    });
    (kids || []).forEach(function (c) { if (c !== null && c !== undefined) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
    return e;
  }
  function healthBadge(h) { h = h || 'Unknown'; return el('span', { 'class': 'badge health-' + h, 'data-health': h, text: (HEALTH[h] || '?') + ' ' + h }); }
  function syncBadge(s) { s = s || 'Unknown'; return el('span', { 'class': 'badge sync-' + s, 'data-sync': s, text: (SYNC[s] || '?') + ' ' + s }); }
  function keyOf(n) { return n.key ? [n.key.group, n.key.kind, n.key.namespace, n.key.name].join('/') : 'app'; }
  function appHref(id) { var p = id.split('/'); return '#/app/' + encodeURIComponent(p[0]) + '/' + encodeURIComponent(p.slice(1).join('/')); }
  function destination(d) { return (d.server || d.name || '') + (d.namespace ? ' (' + d.namespace + ')' : ''); }

  function matches(a, words) {
    return words.every(function (w) {
      var eq = w.indexOf('=');
      if (eq > 0) return a.labels && a.labels[w.slice(0, eq)] === w.slice(eq + 1);
      var hay = [a.name, a.namespace, a.project, a.sync, a.health].join(' ').toLowerCase();
      return hay.indexOf(w.toLowerCase()) >= 0;
    });
  }

  function renderList(data) {
    state.apps = data.apps;
    var words = state.filter.split(/\\s+/).filter(Boolean);
    var rows = data.apps.filter(function (a) { return matches(a, words); }).map(function (a) {
      return el('tr', { 'data-app': a.id }, [
        el('td', {}, [el('a', { href: appHref(a.id), text: a.name })]),
        el('td', { text: a.namespace }),
        el('td', { text: a.project }),
        el('td', {}, [syncBadge(a.sync)]),
        el('td', {}, [healthBadge(a.health)]),
        el('td', { 'class': 'mono', text: a.revision ? a.revision.slice(0, 7) : '' }),
        el('td', { text: destination(a.destination) }),
        el('td', { text: a.lastSync ? a.lastSync.replace('T', ' ').replace(/\\.\\d+Z$|Z$/, ' UTC') : '' }),
        el('td', { 'class': a.error ? 'error' : 'reason', text: a.error || a.reason || (a.comparedAt ? '' : 'comparing\\u2026') }),
      ]);
    });
    var input = el('input', { id: 'filter', type: 'search', placeholder: 'filter: name, status, label=value', value: state.filter, 'aria-label': 'filter applications' });
    input.addEventListener('input', function () { state.filter = input.value; renderList({ apps: state.apps, loading: data.loading }); var f = document.getElementById('filter'); f.focus(); f.setSelectionRange(f.value.length, f.value.length); });
    var table = el('table', { id: 'apps' }, [
      el('thead', {}, [el('tr', {}, ['Name', 'Namespace', 'Project', 'Sync', 'Health', 'Revision', 'Destination', 'Last sync', 'Reason'].map(function (h) { return el('th', { text: h }); }))]),
      el('tbody', {}, rows),
    ]);
    main.replaceChildren(
      el('div', { 'class': 'filter' }, [input, el('span', { id: 'count', text: rows.length + ' of ' + data.apps.length + ' applications' + (data.loading ? ' (comparing\\u2026)' : '') }), el('button', { id: 'refresh-all', onclick: function () { api('/api/refresh', 'POST'); }, text: 'Refresh all' })]),
      table
    );
  }

  // A cell whose text may wrap only at its boundaries: a <wbr> after each character of \`after\` and before each [selector].
  function breakableCell(cls, text, after) {
    var td = el('td', { 'class': cls });
    var part = '';
    function cut() { if (part) { td.appendChild(document.createTextNode(part)); td.appendChild(document.createElement('wbr')); part = ''; } }
    for (var i = 0; i < text.length; i++) {
      var c = text.charAt(i);
      if (c === '[') cut();
      part += c;
      if (after.indexOf(c) >= 0) cut();
    }
    if (part) td.appendChild(document.createTextNode(part));
    return td;
  }
  function pathCell(path) { return breakableCell('mono path', path, './'); }
  function valueCell(value) { return breakableCell('mono value', value, './:,-='); }

  // The map's zoom (1: the SVG's own size), kept while the same app is redrawn; drag on the background pans.
  function applyZoom(map) {
    var svg = map.querySelector('svg');
    if (!svg) return;
    if (!svg.hasAttribute('data-width')) { svg.setAttribute('data-width', svg.getAttribute('width')); svg.setAttribute('data-height', svg.getAttribute('height')); }
    svg.setAttribute('width', String(Math.round(Number(svg.getAttribute('data-width')) * state.zoom)));
    svg.setAttribute('height', String(Math.round(Number(svg.getAttribute('data-height')) * state.zoom)));
    var label = document.getElementById('zoom-level');
    if (label) label.textContent = Math.round(state.zoom * 100) + '%';
  }
  function zoomTo(map, z) { state.zoom = Math.min(4, Math.max(0.1, z)); applyZoom(map); }
  function fitZoom(map) {
    var svg = map.querySelector('svg');
    var w = svg ? Number(svg.getAttribute('data-width') || svg.getAttribute('width')) : 0;
    var h = svg ? Number(svg.getAttribute('data-height') || svg.getAttribute('height')) : 0;
    if (w > 0 && h > 0) zoomTo(map, Math.min(1, (map.clientWidth - 2) / w, Math.max(200, map.clientHeight - 2) / h));
  }
  function mapTools(map) {
    return el('div', { 'class': 'map-tools' }, [
      el('button', { id: 'zoom-out', 'aria-label': 'zoom out', onclick: function () { zoomTo(map, state.zoom / 1.25); }, text: '\u2212' }),
      el('button', { id: 'zoom-in', 'aria-label': 'zoom in', onclick: function () { zoomTo(map, state.zoom * 1.25); }, text: '+' }),
      el('button', { id: 'zoom-fit', onclick: function () { fitZoom(map); }, text: 'Fit' }),
      el('button', { id: 'zoom-reset', onclick: function () { zoomTo(map, 1); }, text: '100%' }),
      el('span', { id: 'zoom-level', 'class': 'reason', text: Math.round(state.zoom * 100) + '%' }),
    ]);
  }
  // One drag at a time, followed by two listeners on the window (a redraw makes a new map, not new listeners).
  var pan = null;
  window.addEventListener('mousemove', function (e) { if (pan) { pan.map.scrollLeft = pan.left - (e.clientX - pan.x); pan.map.scrollTop = pan.top - (e.clientY - pan.y); } });
  window.addEventListener('mouseup', function () { if (pan) pan.map.classList.remove('panning'); pan = null; });
  function pannable(map) {
    map.addEventListener('wheel', function (e) { if (e.ctrlKey) { e.preventDefault(); zoomTo(map, state.zoom * (e.deltaY < 0 ? 1.1 : 1 / 1.1)); } }, { passive: false });
    map.addEventListener('mousedown', function (e) {
      if (e.button !== 0 || (e.target.closest && e.target.closest('g.node'))) return;
      pan = { map: map, x: e.clientX, y: e.clientY, left: map.scrollLeft, top: map.scrollTop };
      map.classList.add('panning');
    });
  }

  function fieldTable(fields) {
    return el('table', { id: 'fields' }, [
      el('thead', {}, [el('tr', {}, ['Path', 'Desired', 'Live', 'Owners', 'Verdict'].map(function (h) { return el('th', { text: h }); }))]),
      el('tbody', {}, fields.map(function (f) {
        var owners = f.owners.map(function (o) { return o.manager + ' (' + o.operation + (o.age ? ', ' + o.age : '') + ')'; }).join(', ') || '-';
        return el('tr', { 'class': 'verdict-' + f.kind }, [pathCell(f.path), valueCell(f.desired), valueCell(f.live), el('td', { 'class': 'owners', text: owners }), el('td', { text: f.verdict })]);
      })),
    ]);
  }

  function showDetail(node) {
    var box = document.getElementById('detail');
    if (!box || !node) return;
    Array.prototype.forEach.call(document.querySelectorAll('#map g.node.selected'), function (g) { g.classList.remove('selected'); });
    var g = document.querySelector('#map g.node[data-node="' + node.id + '"]');
    if (g) g.classList.add('selected');
    var kids = [
      el('h2', { text: node.kind + '/' + node.name }),
      node.namespace ? el('div', { text: 'namespace ' + node.namespace }) : null,
      el('p', {}, [node.health ? healthBadge(node.health) : null, ' ', node.sync ? syncBadge(node.sync) : null, node.extra ? el('span', { 'class': 'badge health-Missing', text: 'extra: prune candidate' }) : null]),
      node.hook ? el('p', { text: 'Hook still in the cluster (' + node.hook + '): not part of the sync status or health' }) : null,
      node.healthMessage ? el('p', { 'class': 'reason', text: node.healthMessage }) : null,
      node.cause ? el('p', { 'class': 'reason', text: 'Reason: ' + node.cause }) : null,
    ];
    if (node.app) kids.push(el('p', { id: 'child-app' }, node.app.listed
      ? ['Child Application ', el('a', { id: 'child-link', href: appHref(node.app.id), text: node.app.id }), ' ', healthBadge(node.app.health), ' ', syncBadge(node.app.sync)]
      : ['Child Application ' + node.app.id + ' (not listed here: start the dashboard with its --app-namespace, or -A)']));
    if (node.fields) kids.push(el('h3', { text: 'Drifted fields' }), fieldTable(node.fields));
    var yaml = el('pre', { id: 'yaml', text: node.key ? 'loading\\u2026' : '' });
    if (node.key) kids.push(el('h3', { text: 'Live object (normalized)' }), yaml);
    box.replaceChildren.apply(box, kids.filter(Boolean));
    if (!node.key) return;
    api('/api/apps/' + state.appId.split('/').map(encodeURIComponent).join('/') + '/nodes/' + encodeURIComponent(node.id)).then(function (d) {
      yaml.textContent = d.yaml || d.error || '(not in the cluster)';
    }, function (e) { yaml.textContent = 'error: ' + e.message; });
  }

  function renderApp(view) {
    state.view = view;
    var r = view.row;
    var map = el('div', { id: 'map' });
    map.innerHTML = view.svg;
    if (state.zoomApp !== state.appId) { state.zoomApp = state.appId; state.zoom = 1; }
    applyZoom(map);
    pannable(map);
    map.addEventListener('click', function (e) {
      var g = e.target.closest ? e.target.closest('g.node') : null;
      if (!g) return;
      var node = view.nodes.filter(function (n) { return n.id === g.getAttribute('data-node'); })[0];
      state.selectedKey = keyOf(node);
      showDetail(node);
    });
    map.addEventListener('keydown', function (e) { if ((e.key === 'Enter' || e.key === ' ') && e.target.closest && e.target.closest('g.node')) { e.preventDefault(); e.target.closest('g.node').dispatchEvent(new MouseEvent('click', { bubbles: true })); } });
    var head = el('div', { 'class': 'app-head' }, [
      el('a', { href: '#/', text: '\\u2190 all applications' }),
      el('h1', { id: 'app-name', text: r.namespace + '/' + r.name }),
      syncBadge(r.sync), healthBadge(r.health),
      el('span', { 'class': 'mono', text: r.revision ? 'revision ' + r.revision.slice(0, 7) : '' }),
      el('span', { text: 'destination ' + destination(r.destination) }),
      el('button', { id: 'refresh', onclick: function () { api('/api/apps/' + state.appId.split('/').map(encodeURIComponent).join('/') + '/refresh', 'POST'); }, text: 'Refresh' }),
    ]);
    var notes = [];
    if (r.error) notes.push(el('p', { 'class': 'error', text: r.error }));
    if (r.reason) notes.push(el('p', { id: 'reason', 'class': 'reason', text: 'Reason: ' + r.reason }));
    (view.warnings || []).forEach(function (w) { notes.push(el('p', { 'class': 'warn', text: 'warning: ' + w })); });
    var detail = el('aside', { id: 'detail' }, [el('p', { text: 'Click a node for its live object and, when it drifted, who owns each field.' })]);
    main.replaceChildren.apply(main, [head].concat(notes, [el('div', { 'class': 'layout' }, [el('div', {}, [mapTools(map), map]), detail])]));
    if (state.selectedKey) {
      var again = view.nodes.filter(function (n) { return keyOf(n) === state.selectedKey; })[0];
      if (again) showDetail(again);
    }
    document.title = r.name + ' \\u2013 kubectl gitops dashboard';
  }

  function load() {
    var m = /^#\\/app\\/([^/]+)\\/([^/]+)$/.exec(location.hash);
    if (m) {
      var id = decodeURIComponent(m[1]) + '/' + decodeURIComponent(m[2]);
      if (state.page !== 'app' || state.appId !== id) state.selectedKey = '';
      state.page = 'app'; state.appId = id;
      return api('/api/apps/' + encodeURIComponent(decodeURIComponent(m[1])) + '/' + encodeURIComponent(decodeURIComponent(m[2]))).then(renderApp, showError);
    }
    state.page = 'list'; state.appId = '';
    document.title = 'kubectl gitops dashboard';
    return api('/api/apps').then(renderList, showError);
  }
  function showError(e) { main.replaceChildren(el('p', { 'class': 'error', text: 'error: ' + e.message })); }

  window.addEventListener('hashchange', load);
  var live = document.getElementById('live');
  var events = new EventSource(withToken('/api/events'));
  events.onopen = function () { live.textContent = 'live'; live.setAttribute('data-state', 'live'); };
  events.onerror = function () { live.textContent = 'reconnecting\\u2026'; live.setAttribute('data-state', 'down'); };
  // A burst of events (a round comparing many apps) makes one reload.
  var reloadTimer = 0;
  function reloadSoon() { if (!reloadTimer) reloadTimer = setTimeout(function () { reloadTimer = 0; load(); }, 100); }
  events.addEventListener('apps', function () { if (state.page === 'list') reloadSoon(); });
  events.addEventListener('app', function (e) {
    var ev = JSON.parse(e.data);
    // The app's page also follows the child Applications it draws (their health is on its map).
    var child = state.view && (state.view.nodes || []).some(function (n) { return n.app && n.app.id === ev.id; });
    if (state.page === 'list' || (state.page === 'app' && (ev.id === state.appId || child))) reloadSoon();
  });
  load();
})();
`;
