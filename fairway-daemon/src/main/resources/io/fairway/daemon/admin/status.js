// Follows /api/v1/events and redraws the tables from /api/v1/services; with a token entered
// (kept in sessionStorage only, sent as the Authorization header, never as a cookie) each row
// gets drain / maint / ready buttons. On a listener whose reads need the token (body
// data-reads="token"), EventSource cannot send the header: the token buys a read session first
// (POST /api/v1/session sets an HttpOnly cookie), renewed at half its lifetime; changes still go
// with the header only.
(function () {
  'use strict';
  var box = document.getElementById('services');
  var readsNeedToken = document.body.dataset.reads === 'token';
  var auth = document.getElementById('auth');
  var tokenInput = document.getElementById('token');
  var msg = document.getElementById('msg');
  auth.hidden = false;

  function token() { return sessionStorage.getItem('fairway-token'); }

  // Per server, what the charts draw: one sample per read at least a second apart, the last five
  // minutes. Rates and the p99 come from the difference of two reads' counters, so they cover the
  // time between reads and need no window on the daemon.
  var HISTORY_MS = 5 * 60 * 1000;
  var samples = {};
  var COLUMNS = ['server', 'state', 'for', 'admin', 'weight', 'active / limit', 'conns', 'conn/s', 'reqs', 'req/s', 'max',
    'errors', 'err/s', 'retries', 'in / out', 'p99', 'last 5 min', 'last check', 'since'];

  function sample(k, rs) {
    var now = Date.now();
    var h = samples[k] || (samples[k] = { points: [], prev: null, max: 0 });
    var prev = h.prev;
    var cur = {
      t: now,
      conns: rs.connections_total,
      req: rs.http ? rs.http.requests : null,
      err: rs.http ? rs.http.errors : null,
      buckets: rs.http && rs.http.latency ? rs.http.latency.total : null
    };
    if (prev && now - prev.t < 1000) { return h; }
    h.prev = cur;
    if (!prev || cur.conns < prev.conns || (cur.req !== null && cur.req < prev.req)) { return h; }
    var dt = (now - prev.t) / 1000;
    var p = {
      t: now,
      up: rs.state !== 'down',
      connRate: (cur.conns - prev.conns) / dt,
      reqRate: cur.req === null || prev.req === null ? null : (cur.req - prev.req) / dt,
      errRate: cur.err === null || prev.err === null ? null : (cur.err - prev.err) / dt,
      p99: p99(rs.http && rs.http.latency ? rs.http.latency.bounds_seconds : null, prev.buckets, cur.buckets)
    };
    if (p.reqRate !== null) { h.max = Math.max(h.max, p.reqRate); }
    h.points.push(p);
    while (h.points.length && now - h.points[0].t > HISTORY_MS) { h.points.shift(); }
    return h;
  }

  // The 99th percentile of the requests between two reads, interpolated in its bucket as
  // Prometheus's histogram_quantile does; null without requests in between.
  function p99(bounds, before, after) {
    if (!bounds || !before || !after) { return null; }
    var d = after.map(function (n, i) { return n - before[i]; });
    var total = d.reduce(function (a, b) { return a + b; }, 0);
    if (total <= 0) { return null; }
    var rank = 0.99 * total, seen = 0;
    for (var i = 0; i < d.length; i++) {
      if (seen + d[i] >= rank) {
        if (i >= bounds.length) { return bounds[bounds.length - 1]; }
        var lo = i === 0 ? 0 : bounds[i - 1];
        return lo + (bounds[i] - lo) * (d[i] ? (rank - seen) / d[i] : 1);
      }
      seen += d[i];
    }
    return bounds[bounds.length - 1];
  }

  function last(h) { return h.points.length ? h.points[h.points.length - 1] : null; }

  function fixed(x) { return x === null || x === undefined ? '' : x.toFixed(1); }

  function ms(seconds) { return seconds === null || seconds === undefined ? '' : (seconds * 1000).toFixed(1) + ' ms'; }

  function bytes(n) {
    var units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'], i = 0;
    while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
    return (i ? n.toFixed(1) : n) + ' ' + units[i];
  }

  // One small line chart per series, drawn as inline SVG (no style attribute: the CSP allows only
  // the style sheet, which colours them by class).
  var SVG = 'http://www.w3.org/2000/svg';
  function spark(points, field, cls, label) {
    var w = 60, hgt = 20;
    var svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('viewBox', '0 0 ' + w + ' ' + hgt);
    svg.setAttribute('width', w);
    svg.setAttribute('height', hgt);
    svg.setAttribute('class', 'spark ' + cls);
    svg.dataset.series = field;
    var title = document.createElementNS(SVG, 'title');
    var vals = points.map(function (p) { return p[field]; });
    var top = Math.max.apply(null, vals.map(function (v) { return v || 0; }).concat([0]));
    var now = Date.now();
    // The width spans the history kept, at least a minute: a fresh page's line is not a dot.
    var span = points.length ? Math.min(HISTORY_MS, Math.max(60000, now - points[0].t)) : HISTORY_MS;
    var xy = [];
    points.forEach(function (p) {
      if (p[field] === null) { return; }
      var x = w - (now - p.t) / span * w;
      var y = hgt - 1 - (top > 0 ? p[field] / top * (hgt - 3) : 0);
      xy.push(x.toFixed(1) + ',' + y.toFixed(1));
    });
    title.textContent = label + ', last ' + Math.round(span / 1000) + ' s, max ' + (field === 'p99' ? ms(top) : top.toFixed(1));
    svg.appendChild(title);
    var line = document.createElementNS(SVG, 'polyline');
    line.setAttribute('points', xy.join(' '));
    svg.appendChild(line);
    svg.dataset.points = xy.length;
    return svg;
  }

  function charts(td, h, rs) {
    var div = document.createElement('div');
    div.className = 'charts' + (rs.state === 'down' ? ' down' : '');
    div.appendChild(spark(h.points, rs.http ? 'reqRate' : 'connRate', 'rate', rs.http ? 'req/s' : 'conn/s'));
    if (rs.http) {
      div.appendChild(spark(h.points, 'errRate', 'err', 'errors/s'));
      div.appendChild(spark(h.points, 'p99', 'lat', 'p99'));
    }
    td.appendChild(div);
  }

  // The last attempt of any of the server's checkers: what it saw, how long it took, when.
  function attempt(check) {
    var a = check && check.last_attempt;
    return a ? a.check + ' ' + a.outcome + (a.observation ? ': ' + a.observation : '') + ' (' + a.duration_ms.toFixed(1)
      + ' ms, ' + clock(a.at) + ')' : '';
  }

  function clock(iso) {
    var t = new Date(Date.parse(iso));
    return isNaN(t) ? iso : t.toLocaleTimeString(undefined, { hour12: false });
  }

  function row(body, vs, rs) {
    var h = sample(vs.name + ' ' + rs.name, rs);
    var p = last(h);
    var tr = body.insertRow();
    tr.className = 'st-' + rs.state;
    tr.dataset.rs = rs.name;
    cell(tr, rs.name);
    var st = cell(tr, rs.state);
    st.className = 'state';
    // Why the checkers decided so: on hover, the last check column says what they see now.
    st.title = rs.last_check ? rs.last_check.reason : '';
    cell(tr, rs.last_check ? age(rs.last_check.since) : '').className = 'for';
    cell(tr, rs.admin_state);
    cell(tr, (rs.slow_start_weight != null ? rs.slow_start_weight + ' (slow start) → ' : '')
      + rs.effective_weight + ' / ' + rs.configured_weight);
    // Against its limit (uthreshold / max_conns) when it has one: how close to queueing it is.
    // A learned limit (no max_conns) is marked '~': Fairway's estimate of what the server takes.
    var limit = rs.limit ? ' / ' + rs.limit : rs.learned_limit ? ' / ~' + rs.learned_limit : '';
    var active = cell(tr, rs.active_connections + limit);
    active.className = 'active';
    if (!rs.limit && rs.learned_limit) {
      active.title = 'limit learned from the server\'s refusals';
    }
    counters(tr, h, rs);
    cell(tr, attempt(rs.last_check)).className = 'check';
    var since = cell(tr, rs.last_check ? local(rs.last_check.since) : '');
    since.className = 'since';
    since.title = rs.last_check ? rs.last_check.reason : '';
    return tr;
  }

  // The traffic columns, from the counters and the rates between reads: a server's, or the sums.
  function counters(tr, h, rs) {
    var p = last(h);
    cell(tr, rs.connections_total).className = 'conns';
    cell(tr, p ? fixed(p.connRate) : '').className = 'connrate';
    cell(tr, rs.http ? rs.http.requests : '').className = 'requests';
    cell(tr, p && p.reqRate !== null ? fixed(p.reqRate) : '').className = 'reqrate';
    cell(tr, p && p.reqRate !== null ? h.max.toFixed(1) : '').className = 'reqmax';
    cell(tr, rs.http ? rs.http.errors : '').className = 'errors';
    cell(tr, p ? fixed(p.errRate) : '').className = 'errrate';
    cell(tr, rs.http ? rs.http.retries : '').className = 'retries';
    cell(tr, bytes(rs.bytes_in) + ' / ' + bytes(rs.bytes_out)).className = 'bytes';
    cell(tr, p ? ms(p.p99) : '').className = 'p99';
    charts(cell(tr, ''), h, rs);
  }

  // The virtual server's own row under its servers (HAProxy's BACKEND line): the servers'
  // counters summed, its rates, maximum and p99 from the sums as a server's from its own.
  function totalRow(foot, vs, withAction) {
    var sum = summed(vs.servers);
    var h = sample(vs.name + ' ', sum);
    var tr = foot.insertRow();
    tr.className = 'total' + (sum.up ? '' : ' st-down');
    cell(tr, 'total');
    cell(tr, sum.up + ' / ' + vs.servers.length + ' up').className = 'state';
    cell(tr, '');
    cell(tr, '');
    cell(tr, sum.effective + ' / ' + sum.configured);
    cell(tr, sum.active_connections).className = 'active';
    counters(tr, h, sum);
    cell(tr, '');
    cell(tr, '');
    if (withAction) { cell(tr, ''); }
  }

  function summed(servers) {
    var s = { state: 'up', up: 0, effective: 0, configured: 0, active_connections: 0, connections_total: 0,
      bytes_in: 0, bytes_out: 0, http: null };
    servers.forEach(function (rs) {
      if (rs.state === 'up') { s.up++; }
      s.effective += rs.effective_weight;
      s.configured += rs.configured_weight;
      s.active_connections += rs.active_connections;
      s.connections_total += rs.connections_total;
      s.bytes_in += rs.bytes_in;
      s.bytes_out += rs.bytes_out;
      if (rs.http) { s.http = addHttp(s.http, rs.http); }
    });
    if (!s.up) { s.state = 'down'; }
    return s;
  }

  // Latency buckets add up only over the same bounds; a p99 is not drawn for a mix.
  function addHttp(a, b) {
    if (!a) {
      return { requests: b.requests, errors: b.errors, retries: b.retries,
        latency: b.latency ? { bounds_seconds: b.latency.bounds_seconds, total: b.latency.total.slice() } : null };
    }
    a.requests += b.requests;
    a.errors += b.errors;
    a.retries += b.retries;
    if (a.latency && b.latency && a.latency.total.length === b.latency.total.length) {
      a.latency.total = a.latency.total.map(function (n, i) { return n + b.latency.total[i]; });
    } else {
      a.latency = null;
    }
    return a;
  }

  // "2m13s": how long the server has been in its checkers' state.
  function age(since) {
    var s = Math.max(0, Math.floor((Date.now() - Date.parse(since)) / 1000));
    var d = Math.floor(s / 86400), h = Math.floor(s / 3600) % 24, m = Math.floor(s / 60) % 60;
    return (d ? d + 'd' : '') + (d || h ? h + 'h' : '') + (d || h || m ? m + 'm' : '') + (s % 60) + 's';
  }

  // The browser's local time, to the second.
  function local(since) {
    var t = new Date(Date.parse(since));
    if (isNaN(t)) { return since; }
    return t.toDateString() === new Date().toDateString()
      ? t.toLocaleTimeString(undefined, { hour12: false }) : t.toLocaleString(undefined, { hour12: false });
  }

  function cell(row, text) {
    var td = document.createElement('td');
    td.textContent = text;
    row.appendChild(td);
    return td;
  }

  function act(vs, rs, state) {
    fetch('/api/v1/services/' + encodeURIComponent(vs) + '/servers/' + encodeURIComponent(rs) + '/state', {
      method: 'POST',
      credentials: 'omit',
      headers: { 'Authorization': 'Bearer ' + token(), 'Content-Type': 'application/json' },
      body: JSON.stringify({ state: state })
    }).then(function (r) {
      return r.json().then(function (j) {
        msg.textContent = r.ok ? vs + ' ' + rs + ': ' + state : 'refused: ' + j.error;
        refresh();
      });
    }).catch(function (e) { msg.textContent = 'request failed: ' + e; });
  }

  // The VRRP instances, one line: hidden when none runs.
  var vrrpLine = document.getElementById('vrrp');
  function vrrp(v) {
    var list = v && v.instances ? v.instances : [];
    vrrpLine.hidden = !list.length;
    vrrpLine.textContent = list.length ? 'VRRP: ' + list.map(function (i) {
      return i.name + ' ' + i.state + (i.since ? ' for ' + age(i.since) + ' (since ' + local(i.since) + ')' : '')
        + ', priority ' + i.priority;
    }).join('; ') : '';
  }

  // Announcing (BGP through the routing daemon), one line: hidden when no announce_table is set.
  var announceLine = document.getElementById('announce');
  function announce(a) {
    var on = a && a.configured;
    announceLine.hidden = !on;
    announceLine.textContent = on ? 'Announce: ' + (a.enabled ? 'on' : 'off (fairway announce off)')
      + ', table ' + a.table + (a.addresses.length ? ': ' + a.addresses.map(function (x) {
        return x.address + (x.announced ? ' announced' : ' withdrawn');
      }).join('; ') : '') : '';
  }

  function draw(services) {
    var frag = document.createDocumentFragment();
    if (!services.length) {
      var none = document.createElement('p');
      none.id = 'none';
      none.textContent = 'There is no virtual_server in this configuration.';
      frag.appendChild(none);
    }
    services.forEach(function (vs) {
      var t = document.createElement('table');
      t.className = 'vs';
      t.dataset.vs = vs.name;
      var cap = document.createElement('caption');
      var q = document.createElement('span');
      q.className = 'q-' + vs.quorum;
      q.textContent = vs.quorum;
      cap.append(vs.name + ' — ' + vs.services.join(', ') + ' ' + vs.scheduler + ' — quorum ', q,
        vs.sorry_server ? ' — sorry server ' + vs.sorry_server + ' ' + vs.sorry_server_state : '',
        vs.queue ? ' — queue ' + vs.queue.waiting + ' waiting (' + vs.queue.queued + ' queued, ' + vs.queue.timed_out
          + ' timed out, ' + vs.queue.refused_full + ' refused full)' : '');
      t.appendChild(cap);
      var head = t.createTHead().insertRow();
      COLUMNS.concat(token() ? ['action'] : []).forEach(function (h) {
        var th = document.createElement('th');
        th.textContent = h;
        head.appendChild(th);
      });
      var body = t.createTBody();
      vs.servers.forEach(function (rs) {
        var tr = row(body, vs, rs);
        if (token()) {
          var td = cell(tr, '');
          ['drain', 'maint', 'ready'].forEach(function (s) {
            var b = document.createElement('button');
            b.className = 'act';
            b.textContent = s;
            b.dataset.action = s;
            b.addEventListener('click', function () { act(vs.name, rs.name, s); });
            td.appendChild(b);
          });
        }
      });
      if (vs.servers.length) { totalRow(t.createTFoot(), vs, !!token()); }
      var wrap = document.createElement('div');
      wrap.className = 'wrap';
      wrap.appendChild(t);
      frag.appendChild(wrap);
    });
    box.replaceChildren(frag);
  }

  // One read at a time; an event during a read asks for one more, so no change is missed.
  var pending = false;
  var again = false;
  function refresh() {
    if (pending) { again = true; return; }
    pending = true;
    again = false;
    var read = function (path) {
      return fetch(path, { credentials: 'same-origin', cache: 'no-store' }).then(function (r) { return r.json(); });
    };
    Promise.all([read('/api/v1/services'), read('/api/v1/vrrp'), read('/api/v1/announce')])
      .then(function (all) { draw(all[0]); vrrp(all[1]); announce(all[2]); })
      .catch(function () { })
      .finally(function () {
        pending = false;
        if (again) { refresh(); }
      });
  }

  auth.addEventListener('submit', function (e) {
    e.preventDefault();
    if (tokenInput.value) {
      sessionStorage.setItem('fairway-token', tokenInput.value);
    } else {
      sessionStorage.removeItem('fairway-token');
    }
    tokenInput.value = '';
    msg.textContent = token() ? 'token set for this tab' : 'token cleared';
    if (readsNeedToken) {
      if (token()) { session().then(start, refused); }
    } else {
      refresh();
    }
  });

  // A read session for this tab's token; renewed before it runs out.
  var renewal = null;
  function session() {
    return fetch('/api/v1/session', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Authorization': 'Bearer ' + token() }
    }).then(function (r) {
      return r.json().then(function (j) {
        if (!r.ok) { throw new Error(j.error); }
        clearTimeout(renewal);
        renewal = setTimeout(function () { session().catch(refused); }, j.expires_in_seconds * 500);
      });
    });
  }

  function refused(e) {
    msg.textContent = 'no read session: ' + (e && e.message ? e.message : e);
  }

  var es = null;
  function start() {
    if (es) { refresh(); return; }
    es = new EventSource('/api/v1/events');
    ['server_up', 'server_down', 'weight', 'quorum_up', 'quorum_down', 'sorry_in', 'sorry_out', 'reload_ok',
      'reload_refused', 'admin'].forEach(function (k) { es.addEventListener(k, refresh); });
    // Each (re)connection may have missed changes.
    es.onopen = refresh;
    // Counters move without events; a slow poll keeps them honest.
    setInterval(refresh, 2000);
    refresh();
  }

  if (!readsNeedToken) {
    start();
  } else if (token()) {
    session().then(start, refused);
  } else {
    msg.textContent = 'this listener needs the admin token';
  }
}());
