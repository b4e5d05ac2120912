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

  // Connection rate per server from the totals of two successive reads.
  var last = {};
  function rate(vs, rs) {
    var k = vs.name + ' ' + rs.name;
    var now = Date.now();
    var prev = last[k];
    last[k] = { t: now, n: rs.connections_total };
    if (!prev || now - prev.t < 500 || rs.connections_total < prev.n) { return prev && prev.r !== undefined ? prev.r : ''; }
    var r = ((rs.connections_total - prev.n) * 1000 / (now - prev.t)).toFixed(1);
    last[k].r = r;
    return r;
  }

  // HTTP request rate per server, the same way, and the highest seen since the page opened.
  var lastReq = {};
  function reqRate(vs, rs) {
    if (!rs.http) { return ''; }
    var k = vs.name + ' ' + rs.name;
    var now = Date.now();
    var prev = lastReq[k];
    var cur = { t: now, n: rs.http.requests, r: prev ? prev.r : '', max: prev ? prev.max : 0 };
    lastReq[k] = cur;
    if (prev && now - prev.t >= 500 && rs.http.requests >= prev.n) {
      var r = (rs.http.requests - prev.n) * 1000 / (now - prev.t);
      cur.r = r.toFixed(1);
      cur.max = Math.max(cur.max, r);
    }
    return cur.r === '' ? '' : cur.r + ' (max ' + cur.max.toFixed(1) + ')';
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
    return isNaN(t) ? since : t.toLocaleString(undefined, { hour12: false });
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
        vs.sorry_server ? ' — sorry server ' + vs.sorry_server + ' ' + vs.sorry_server_state : '');
      t.appendChild(cap);
      var head = t.createTHead().insertRow();
      ['server', 'state', 'for', 'admin', 'weight', 'active', 'inactive', 'connections', 'conn/s', 'requests',
        'req/s', 'errors', 'retries', 'last check', 'since']
        .concat(token() ? ['action'] : []).forEach(function (h) {
          var th = document.createElement('th');
          th.textContent = h;
          head.appendChild(th);
        });
      var body = t.createTBody();
      vs.servers.forEach(function (rs) {
        var row = body.insertRow();
        row.className = 'st-' + rs.state;
        row.dataset.rs = rs.name;
        cell(row, rs.name);
        cell(row, rs.state).className = 'state';
        cell(row, rs.last_check ? age(rs.last_check.since) : '').className = 'for';
        cell(row, rs.admin_state);
        cell(row, (rs.slow_start_weight != null ? rs.slow_start_weight + ' (slow start) → ' : '')
          + rs.effective_weight + ' / ' + rs.configured_weight);
        cell(row, rs.active_connections);
        cell(row, rs.inactive_connections);
        cell(row, rs.connections_total);
        cell(row, rate(vs, rs));
        cell(row, rs.http ? rs.http.requests : '').className = 'requests';
        cell(row, reqRate(vs, rs));
        cell(row, rs.http ? rs.http.errors : '').className = 'errors';
        cell(row, rs.http ? rs.http.retries : '');
        cell(row, rs.last_check ? rs.last_check.reason : '');
        cell(row, rs.last_check ? local(rs.last_check.since) : '');
        if (token()) {
          var td = cell(row, '');
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
      frag.appendChild(t);
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
    fetch('/api/v1/services', { credentials: 'same-origin', cache: 'no-store' }).then(function (r) { return r.json(); })
      .then(function (s) { draw(s); })
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
