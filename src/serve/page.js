// small serve's page. Every node is built with createElement and textContent:
// the text comes from files anyone may have written (the CSP also forbids
// HTML from strings: require-trusted-types-for 'script').
'use strict';
(() => {
  const SETTLED = new Set(['completed', 'cancelled']);
  const CARDS_PER_COLUMN = 200;
  const GRAPH_TASKS = 300;
  const $ = (id) => document.getElementById(id);
  let state = null;
  let loading = false;
  let again = false;
  let openDefaultSet = false;
  let editing = false;  // an inline editor is open: a new state waits, so the typing is not lost
  window.__smallTimings = {loads: 0};

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v !== undefined && v !== null && v !== false) node.setAttribute(k, String(v));
    }
    for (const c of children) if (c !== null && c !== undefined) node.append(c instanceof Node ? c : String(c));
    return node;
  }
  function clear(node) { while (node.firstChild) node.firstChild.remove(); }
  function holderOf(task) { return task.claim ? task.claim.split(' until ')[0] : ''; }

  async function load() {
    if (loading) { again = true; return; }
    loading = true;
    const t0 = performance.now();
    try {
      const res = await fetch('/state', {credentials: 'same-origin', cache: 'no-store'});
      const text = await res.text();
      if (!res.ok) throw new Error(text);
      const t1 = performance.now();
      state = JSON.parse(text);
      if (!editing) render();
      const t2 = performance.now();
      const timings = window.__smallTimings;
      timings.loads += 1;
      Object.assign(timings, {state_ms: Math.round(t1 - t0), render_ms: Math.round(t2 - t1), state_bytes: text.length});
      if (timings.loads === 1) { performance.mark('small-board-rendered'); timings.first_render_ms = Math.round(t2); }
      document.body.dataset.loads = String(timings.loads);
    } catch (e) {
      showProblems(['cannot read the state: ' + e.message]);
    } finally {
      loading = false;
      if (again) { again = false; load(); }
    }
  }

  function showProblems(list) {
    const box = $('problems');
    box.hidden = list.length === 0;
    box.textContent = list.join('\n');
  }

  function filters() {
    return {open: $('f-open').checked, status: $('f-status').value, holder: $('f-holder').value,
            side: $('f-side').value, text: $('f-text').value.trim().toLowerCase()};
  }
  function shown(task, f) {
    if (f.open && SETTLED.has(task.status)) return false;
    if (f.status && task.status !== f.status) return false;
    if (f.holder && holderOf(task) !== f.holder) return false;
    if (f.text) {
      const hay = [task.id, task.title, task.reason || '', task.claim || ''].join(' ').toLowerCase();
      if (!hay.includes(f.text)) return false;
    }
    return true;
  }

  function setOptions(select, values, first) {
    const keep = select.value;
    clear(select);
    select.append(el('option', {value: ''}, first));
    for (const v of values) select.append(el('option', {value: v}, v));
    select.value = values.includes(keep) ? keep : '';
  }

  function render() {
    $('workspace').textContent = state.workspace;
    document.title = 'small serve: ' + state.workspace;
    if (!openDefaultSet) { $('f-open').checked = state.tasks.length > 100; openDefaultSet = true; }
    setOptions($('f-status'), state.columns, 'any');
    setOptions($('f-holder'), [...new Set(state.tasks.map(holderOf).filter(Boolean))].sort(), 'anyone');
    setOptions($('f-side'), (state.sides || []).filter((x) => !x.current).map((x) => x.name), 'this work tree');
    $('write').hidden = !state.write;
    showProblems(state.problems || []);
    renderSummary();
    renderBoard();
    renderInbox();
    renderReady();
    renderDoc('intent', state.intent);
    renderDoc('constraints', state.constraints);
    renderDoc('handoff', state.handoff);
    renderGraph();
    renderSides();
    renderRecent();
  }

  function renderSummary() {
    const counts = {};
    for (const t of state.tasks) counts[t.status] = (counts[t.status] || 0) + 1;
    const box = $('summary');
    clear(box);
    box.append(el('div', {class: 'tile'}, el('b', {}, state.tasks.length), 'tasks'));
    for (const s of state.columns) box.append(el('div', {class: 'tile', 'data-status': s}, el('b', {}, counts[s] || 0), s));
    box.append(el('div', {class: 'tile'}, el('b', {}, state.ready.length), 'ready'));
    box.append(el('div', {class: 'tile'}, el('b', {}, state.inbox.length), 'wait on a human'));
  }

  function card(t, here = true) {
    const node = el('article', {class: 'card', 'data-task': t.id, 'data-status': t.status},
      el('div', {class: 'id'}, t.id),
      el('div', {class: 'title'}, t.title));
    const marks = el('div', {});
    if (t.ready) marks.append(el('span', {class: 'mark ready'}, 'ready'));
    if (t.critical) marks.append(el('span', {class: 'mark critical'}, 'critical path'));
    if (t.cycle) marks.append(el('span', {class: 'mark cycle'}, 'cycle'));
    if (marks.firstChild) node.append(marks);
    if (t.claim) node.append(el('div', {class: 'meta claim'}, '@ ' + t.claim));
    if (t.reason) node.append(el('div', {class: 'reason'}, 'blocked: ' + t.reason));
    if (t.evidence) node.append(el('div', {class: 'meta'}, '> ' + t.evidence.text));
    if (state.write && here) node.append(actions(t));  // actions change this work tree only
    return node;
  }

  function actions(t) {
    const box = el('div', {class: 'actions'});
    if (t.status === 'blocked') {
      box.append(button('Unblock', 'unblock-' + t.id, () => act({action: 'unblock', task: t.id})));
    } else if (!SETTLED.has(t.status)) {
      box.append(button('Block…', 'block-' + t.id, () => ask(box, 'reason it is blocked', (text) => act({action: 'block', task: t.id, text}))));
    }
    box.append(button('Edit title', 'title-' + t.id, () => ask(box, 'new title', (text) => act({action: 'title', task: t.id, text}), t.title)));
    return box;
  }
  function button(label, name, onclick) {
    const b = el('button', {type: 'button', 'data-action': name}, label);
    b.addEventListener('click', onclick);
    return b;
  }
  function ask(box, placeholder, done, value) {
    clear(box);
    editing = true;
    const input = el('input', {placeholder, maxlength: 500});
    if (value) input.value = value;
    const close = () => { editing = false; render(); };
    const ok = button('OK', 'ok', () => { if (input.value.trim()) { editing = false; done(input.value.trim()); } });
    input.addEventListener('keydown', (e) => { if (e.key === 'Enter') ok.click(); if (e.key === 'Escape') close(); });
    box.append(input, ok, button('Cancel', 'cancel', close));
    input.focus();
  }

  async function act(body) {
    const result = $('action-result');
    result.textContent = 'working…';
    try {
      const res = await fetch('/action', {method: 'POST', credentials: 'same-origin',
        headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)});
      const doc = await res.json();
      result.textContent = res.ok ? (doc.messages || []).join('; ') || 'done' : 'refused: ' + doc.error;
    } catch (e) {
      result.textContent = 'failed: ' + e.message;
    }
    load();
  }

  // Another side's board: its open tasks (the state carries only those), each with the
  // repository's live claim; its settled tasks are counted.
  function sideTasks(side) {
    const claims = new Map((state.claims || []).map((c) => [c.task, c.agent + ' until ' + c.expires_at]));
    return side.open.map((t) => ({...t, claim: claims.get(t.id)}));
  }

  function renderBoard() {
    const f = filters();
    const board = $('board');
    clear(board);
    const side = f.side ? (state.sides || []).find((x) => x.name === f.side) : null;
    const all = side ? sideTasks(side) : state.tasks;
    $('board-title').textContent = side ? 'Board of ' + side.name + ' (open tasks; settled ones counted)' : 'Board';
    let count = 0;
    for (const status of state.columns) {
      if (f.open && SETTLED.has(status)) continue;
      if (f.status && status !== f.status) continue;
      if (side && SETTLED.has(status)) {
        board.append(el('div', {class: 'column', 'data-column': status}, el('h3', {}, status + ' (' + (side.counts[status] || 0) + ')')));
        continue;
      }
      const tasks = all.filter((t) => t.status === status && shown(t, f));
      count += tasks.length;
      const col = el('div', {class: 'column', 'data-column': status}, el('h3', {}, status + ' (' + tasks.length + ')'));
      for (const t of tasks.slice(0, CARDS_PER_COLUMN)) col.append(card(t, !side));
      if (tasks.length > CARDS_PER_COLUMN) col.append(el('div', {class: 'more'}, (tasks.length - CARDS_PER_COLUMN) + ' more: narrow the filters'));
      board.append(col);
    }
    $('f-count').textContent = count + ' of ' + (side ? Object.values(side.counts).reduce((a, b) => a + b, 0) : state.tasks.length) + ' tasks shown';
  }

  function renderInbox() {
    const list = $('inbox');
    clear(list);
    for (const t of state.inbox) {
      const item = el('li', {'data-task': t.id}, el('b', {}, t.id), ' ' + t.title + ' — ' + t.reason);
      if (state.write) item.append(' ', button('Unblock', 'inbox-unblock-' + t.id, () => act({action: 'unblock', task: t.id})));
      list.append(item);
    }
    if (!state.inbox.length) list.append(el('li', {class: 'muted'}, 'nothing waits on a human'));
  }

  function renderReady() {
    const list = $('ready');
    clear(list);
    for (const t of state.ready.slice(0, 50)) {
      list.append(el('li', {'data-task': t.id}, el('b', {}, t.id), ' ' + t.title +
        (t.priority ? ' [' + t.priority + ']' : '') + (t.started_unclaimed ? ' (started, unclaimed)' : '')));
    }
    if (state.ready.length > 50) list.append(el('li', {class: 'muted'}, (state.ready.length - 50) + ' more'));
    if (!state.ready.length) list.append(el('li', {class: 'muted'}, 'nothing is ready'));
  }

  function yamlish(value, indent) {
    const pad = '  '.repeat(indent);
    if (Array.isArray(value)) {
      if (!value.length) return ' []';
      return value.map((v) => '\n' + pad + '- ' + yamlish(v, indent + 1).replace(/^\n\s*/, '')).join('');
    }
    if (value && typeof value === 'object') {
      const keys = Object.keys(value);
      if (!keys.length) return ' {}';
      return keys.map((k) => '\n' + pad + k + ':' + (typeof value[k] === 'object' && value[k] !== null ? '' : ' ') + yamlish(value[k], indent + 1)).join('');
    }
    return value === null ? '~' : String(value);
  }
  function renderDoc(id, value) {
    $(id).textContent = value === null || value === undefined ? '(none)' : yamlish(value, 0).replace(/^\n/, '');
  }

  const SVG = 'http://www.w3.org/2000/svg';
  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function renderGraph() {
    const box = $('graph');
    clear(box);
    const f = filters();
    const open = state.tasks.filter((t) => !SETTLED.has(t.status) && shown(t, {...f, open: true}));
    const tasks = open.slice(0, GRAPH_TASKS);
    if (!tasks.length) { box.append(el('p', {class: 'muted'}, 'no open work matches the filters')); return; }
    const index = new Map(tasks.map((t, i) => [t.id, i]));
    const edges = state.edges.filter(([a, b]) => index.has(a) && index.has(b));
    const depth = new Array(tasks.length).fill(0);
    for (let round = 0; round < tasks.length; round++) {  // longest path; cycles stop at the bound
      let moved = false;
      for (const [a, b] of edges) {
        const d = depth[index.get(a)] + 1;
        if (d > depth[index.get(b)] && d < tasks.length) { depth[index.get(b)] = d; moved = true; }
      }
      if (!moved) break;
    }
    const rows = [];
    const pos = tasks.map((t, i) => { rows[depth[i]] = (rows[depth[i]] || 0) + 1; return [depth[i], rows[depth[i]] - 1]; });
    const W = 190, H = 44, GX = 40, GY = 10;
    const width = (Math.max(...depth) + 1) * (W + GX) + 20;
    const height = Math.max(...rows.filter(Boolean)) * (H + GY) + 20;
    const root = svg('svg', {width, height, viewBox: '0 0 ' + width + ' ' + height, role: 'img'});
    root.append(svg('title', {}, 'dependency graph of the open work'));
    const xy = (i) => [10 + pos[i][0] * (W + GX), 10 + pos[i][1] * (H + GY)];
    for (const [a, b] of edges) {
      const [x1, y1] = xy(index.get(a)), [x2, y2] = xy(index.get(b));
      root.append(svg('line', {x1: x1 + W, y1: y1 + H / 2, x2, y2: y2 + H / 2, stroke: '#94a3b8'}));
    }
    const fill = {pending: '#f1f5f9', in_progress: '#dbeafe', blocked: '#fee2e2'};
    tasks.forEach((t, i) => {
      const [x, y] = xy(i);
      const g = svg('g', {'data-task': t.id});
      g.append(svg('title', {}, t.id + ': ' + t.title + ' (' + t.status + ')'));
      g.append(svg('rect', {x, y, width: W, height: H, rx: 5, fill: fill[t.status] || '#fff',
        stroke: t.critical ? '#b91c1c' : t.ready ? '#1d4ed8' : '#cbd5e1', 'stroke-width': t.critical || t.ready ? 2 : 1}));
      g.append(svg('text', {x: x + 6, y: y + 16}, t.id));
      g.append(svg('text', {x: x + 6, y: y + 33}, t.title.length > 30 ? t.title.slice(0, 29) + '…' : t.title));
      root.append(g);
    });
    box.append(root);
    if (open.length > GRAPH_TASKS) box.append(el('p', {class: 'muted'}, 'the first ' + GRAPH_TASKS + ' of ' + open.length + ' open tasks'));
  }

  function renderSides() {
    const box = $('sides');
    clear(box);
    const table = el('table', {}, el('tr', {}, el('th', {}, 'side'), el('th', {}, 'tasks by status'),
      el('th', {}, 'open tasks'), el('th', {}, 'newest entry'), el('th', {}, 'not merged here')));
    for (const s of state.sides || []) {
      const counts = Object.entries(s.counts).map(([k, v]) => k + ' ' + v).join(', ');
      const open = s.open.slice(0, 12).map((t) => t.id + ' ' + t.status).join(', ') + (s.open.length > 12 ? ', … ' + (s.open.length - 12) + ' more' : '');
      const newest = s.newest ? s.newest.timestamp + ' ' + s.newest.task_id + ' ' + s.newest.status : '';
      table.append(el('tr', {'data-side': s.name},
        el('td', {}, el('b', {}, s.name + (s.current ? ' (here)' : '')), el('div', {class: 'muted'}, s.worktree || 'branch, no work tree')),
        el('td', {}, s.problem ? 'unreadable: ' + s.problem : counts), el('td', {}, open), el('td', {}, newest), el('td', {}, s.unmerged)));
    }
    box.append(table);
    const claims = el('table', {}, el('tr', {}, el('th', {}, 'task'), el('th', {}, 'held by'), el('th', {}, 'until')));
    for (const c of state.claims || []) claims.append(el('tr', {}, el('td', {}, c.task), el('td', {}, c.agent), el('td', {}, c.expires_at)));
    box.append(el('h3', {}, 'Claims'), (state.claims || []).length ? claims : el('p', {class: 'muted'}, 'no live claim'));
  }

  function renderRecent() {
    const list = $('recent');
    clear(list);
    for (const e of state.recent) {
      const text = e.evidence || e.notes || e.command || '';
      list.append(el('li', {}, el('span', {class: 'ts'}, e.timestamp || ''), ' ', el('b', {}, e.task_id || ''), ' ' + (e.status || '') + (text ? ': ' + text : '')));
    }
  }

  function connect() {
    const events = new EventSource('/events');
    events.addEventListener('open', () => { $('live').className = 'live'; $('live').textContent = 'live'; });
    events.addEventListener('change', () => load());
    events.addEventListener('error', () => { $('live').className = 'live off'; $('live').textContent = 'reconnecting'; });
  }

  document.addEventListener('DOMContentLoaded', () => {
    const refilter = () => { renderBoard(); renderGraph(); };
    for (const id of ['f-open', 'f-status', 'f-holder', 'f-side']) $(id).addEventListener('change', refilter);
    $('f-text').addEventListener('input', refilter);
    $('add-button').addEventListener('click', () => {
      const title = $('add-title').value.trim();
      if (title) { $('add-title').value = ''; act({action: 'add', text: title}); }
    });
    load();
    connect();
  });
})();
