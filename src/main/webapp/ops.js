// The operator page: plain JavaScript over the REST API (/billing/api), with the API's own login (HTTP BASIC,
// roles billing-reader and billing-operator). The credentials stay in this tab's memory; nothing is stored.
'use strict';

const API = 'api';
// ?refresh=<ms> within 5 s and 1 h: refresh=1 made 640 API calls in 10 s; a value that is no number is the default
const REFRESH_MIN_MS = 5000;
const REFRESH_MAX_MS = 3600 * 1000;
const REFRESH_ASKED = new URLSearchParams(location.search).get('refresh');
const REFRESH_MS = refreshInterval(REFRESH_ASKED);
const RATE_WINDOW_MS = 5 * 60 * 1000;

let auth = null;          // 'Basic ...' while signed in
let operator = false;     // whether the user may see and change dead letters
let roleKnown = false;    // false while the role could not be read (the API answered neither 2xx nor 403)
let timer = null;
let samples = [];         // {t, figures: {consumer: {processed, duplicatesSkipped, retries, deadLettered}}}

const $ = (id) => document.getElementById(id);

function refreshInterval(asked) {
  const ms = asked === null || asked.trim() === '' ? NaN : Number(asked);
  if (!Number.isFinite(ms)) return REFRESH_MIN_MS;
  return Math.min(REFRESH_MAX_MS, Math.max(REFRESH_MIN_MS, Math.round(ms)));
}

// says how often the page refreshes, and when it is not what ?refresh= asked for, why
function showRefresh() {
  let text = 'Refreshes every ' + REFRESH_MS / 1000 + ' s.';
  if (REFRESH_ASKED !== null && Number(REFRESH_ASKED) !== REFRESH_MS) {
    text += ' (?refresh=' + REFRESH_ASKED.slice(0, 20) + ' asked for another interval: it must be from '
      + REFRESH_MIN_MS + ' to ' + REFRESH_MAX_MS + ' ms.)';
  }
  $('refresh').textContent = text;
}

function cell(row, text, cls) {
  const td = row.insertCell();
  td.textContent = text;        // textContent only: payloads and reasons are never parsed as HTML
  if (cls) td.className = cls;
  return td;
}

async function call(method, path, accept = 'application/json', body = undefined) {
  const headers = { Authorization: auth, Accept: accept };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return fetch(API + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    cache: 'no-store', credentials: 'omit' });
}

async function json(path) {
  const response = await call('GET', path);
  if (!response.ok) throw new Error(path + ': HTTP ' + response.status + ' ' + (await response.text()).slice(0, 200));
  return response.json();
}

async function signIn(event) {
  event.preventDefault();
  const user = $('login-user').value;
  auth = 'Basic ' + btoa(unescape(encodeURIComponent(user + ':' + $('login-password').value)));
  const check = await call('GET', '/invoices/count');
  if (check.status === 401 || check.status === 403) {
    auth = null;
    $('login-error').textContent = check.status === 401 ? 'Wrong user or password.'
      : 'This user has no billing role, or its password is not set on the server.';
    return;
  }
  $('login-password').value = '';
  $('login-error').textContent = '';
  $('user').textContent = user;
  $('login').hidden = true;
  $('who').hidden = false;
  $('dashboard').hidden = false;
  await readRole();
  samples = [];
  await refresh();
  timer = setInterval(refresh, REFRESH_MS);
}

// The role is what the API says of a dead-letter read: 2xx an operator, 403 a reader. Any other answer (the
// database away: 503) says nothing of the role, so it is asked again at the next refresh instead of taking the
// user for a reader for the whole session.
async function readRole() {
  let status;
  try {
    status = (await call('GET', '/dead-letters?limit=1')).status;
  } catch (e) {
    status = 0;
  }
  roleKnown = (status >= 200 && status < 300) || status === 403;
  operator = status >= 200 && status < 300;
  $('role').textContent = roleKnown ? (operator ? 'operator' : 'reader') : 'role not known yet: the API answered ' + status;
  $('dead-letters-operator').hidden = !operator;
  $('dead-letters-reader').hidden = operator || !roleKnown;
  $('sequences-section').hidden = !roleKnown;
  $('sequences-operator').hidden = !operator;
  $('sequences-reader').hidden = operator || !roleKnown;
}

function signOut() {
  clearInterval(timer);
  auth = null;
  operator = false;
  location.reload();
}

// Increases per minute, as Prometheus's rate() reads a counter: a figure that drops between two samples (a purge
// deletes inbox rows, an operator resolves dead letters, a restart zeroes this server's counts) adds nothing for
// that step, so a rate is never negative.
function rate(consumer, field, latest) {
  const minutes = (latest.t - samples[0].t) / 60000;
  if (minutes < 3 / 60 || !samples[0].figures[consumer]) return '–';  // a rate needs a few seconds of history
  let increase = 0;
  for (let i = 1; i < samples.length; i++) {
    const before = samples[i - 1].figures[consumer];
    const after = samples[i].figures[consumer];
    if (before && after) increase += Math.max(0, after[field] - before[field]);
  }
  return (increase / minutes).toFixed(1);
}

function showConsumers(list) {
  const now = Date.now();
  const figures = {};
  list.forEach((c) => { figures[c.consumer] = c; });
  samples.push({ t: now, figures });
  while (samples.length > 1 && now - samples[0].t > RATE_WINDOW_MS) samples.shift();
  const latest = samples[samples.length - 1];
  $('window').textContent = Math.round((latest.t - samples[0].t) / 1000) + ' s';
  const body = $('consumers').tBodies[0];
  body.replaceChildren();
  list.forEach((c) => {
    const row = body.insertRow();
    row.dataset.consumer = c.consumer;
    cell(row, c.consumer);
    cell(row, c.processed, 'num processed');
    cell(row, c.duplicatesSkipped, 'num duplicates');
    cell(row, c.retries, 'num retries');
    cell(row, c.deadLettered, 'num dead-lettered');
    ['processed', 'duplicatesSkipped', 'retries', 'deadLettered'].forEach((f) => cell(row, rate(c.consumer, f, latest), 'num'));
  });
}

function showPurge(purge) {
  if (!purge) { $('purge-state').textContent = 'no purge state yet'; return; }
  $('purge-state').textContent = purge.overdue ? 'OVERDUE' : (purge.lastFinishedAt ? 'on time' : 'not run yet');
  $('purge-state').className = purge.overdue ? 'error' : 'ok';
  $('purge-last').textContent = purge.lastFinishedAt || 'never';
  $('purge-deleted').textContent = purge.lastDeleted + ' / ' + purge.totalDeleted;
  $('purge-error').textContent = purge.lastError ? purge.lastError + ' (' + purge.lastErrorAt + ')' : 'none';
}

async function payloadText(id) {
  const response = await call('GET', '/dead-letters/' + id + '/payload', 'application/octet-stream');
  if (!response.ok) return '(no payload)';
  const bytes = new Uint8Array(await response.arrayBuffer());
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes.slice(0, 2000)) + (bytes.length > 2000 ? ' …' : '');
}

let shownLetters = '';     // what the dead-letter table shows: redrawn only when it changes, so that a button
                           // does not move under the operator's pointer at each refresh

async function showDeadLetters() {
  const letters = await json('/dead-letters?open=true&limit=50');
  const shown = JSON.stringify(letters.map((d) => [d.id, d.lastFailedAt, d.attempts]));
  if (shown === shownLetters) return;
  shownLetters = shown;
  const body = $('dead-letters').tBodies[0];
  const rows = await Promise.all(letters.map(async (d) => ({ d, payload: await payloadText(d.id) })));
  body.replaceChildren();
  rows.forEach(({ d, payload }) => {
    const row = body.insertRow();
    row.dataset.id = d.id;
    cell(row, d.id, 'num');
    cell(row, d.consumer);
    cell(row, d.eventId || '(none)');
    cell(row, d.error);
    cell(row, d.attempts, 'num');
    cell(row, d.lastFailedAt);
    const pre = document.createElement('pre');
    pre.textContent = payload;
    const payloadCell = row.insertCell();
    payloadCell.appendChild(pre);
    payloadCell.appendChild(historyToggle(d.id));
    const actions = row.insertCell();
    // a dead letter without a usable event id cannot be re-driven (the API answers 409 BILLING0245E): no button
    if (d.eventId) {
      const redrive = button('Re-drive', 'redrive', () => act('POST', '/dead-letters/' + d.id + '/redrive', d));
      redrive.title = 'Sends the event again, for ' + d.consumer + ' only: the topic\'s other consumers skip it';
      actions.appendChild(redrive);
      actions.appendChild(document.createTextNode(' '));
    }
    actions.appendChild(button('Discard', 'discard danger', () => act('DELETE', '/dead-letters/' + d.id, d,
      'Discard dead letter ' + d.id + ' of ' + d.consumer + '? This service then re-drives its event to '
        + d.consumer + ' no more (a producer\'s own resend of the event is still processed).')));
  });
  $('no-dead-letters').hidden = letters.length > 0;
}

// a row's history (deliveries, re-drives, discard), read when its toggle is opened
function historyToggle(id) {
  const details = document.createElement('details');
  details.className = 'history';
  const summary = document.createElement('summary');
  summary.textContent = 'History';
  const list = document.createElement('ol');
  details.append(summary, list);
  details.addEventListener('toggle', async () => {
    if (!details.open) return;
    const entries = await json('/dead-letters/' + id + '/history');
    list.replaceChildren(...entries.map((h) => {
      const item = document.createElement('li');
      item.textContent = h.at + ' ' + h.kind
        + (h.actor ? ' by ' + h.actor : '')
        + (h.kind === 'failed' ? ' after ' + h.attempts + ' attempt(s): ' + (h.error || '') : '')
        + (h.kind === 'redriven' ? ' to ' + h.destination + (h.partition != null ? '-' + h.partition + '@' + h.offset : '')
          + ', for ' + (h.targetConsumer ? h.targetConsumer + ' only' : 'every consumer') : '');
      return item;
    }));
    if (!entries.length) list.textContent = 'No entries (the row is older than its history).';
  });
  return details;
}

let shownGroups = '';      // as shownLetters: the group table is redrawn only when it changes

// open dead letters by consumer and failure; operators get a bulk re-drive and discard per group. Returns the groups
// (the sequences' bulk table offers them too).
async function showGroups() {
  const groups = await json('/dead-letters/groups?limit=100');
  const shown = JSON.stringify([operator, groups]);
  if (shown === shownGroups) return groups;
  shownGroups = shown;
  const body = $('dead-letter-groups').tBodies[0];
  body.replaceChildren();
  groups.forEach((g) => {
    const row = groupRow(body, g);
    cell(row, g.firstFailedAt);
    cell(row, g.lastFailedAt);
    const actions = row.insertCell();
    if (!operator) return;
    const what = g.count + ' open dead letter' + (g.count === 1 ? '' : 's') + ' of ' + g.consumer + ' failing with '
      + g.failure + (g.count > 1000 ? ' (1000 per click)' : '');
    // a dead letter without an event id would fail again: the re-drive refuses it (BILLING0245E)
    if (g.redrivable > 0) {
      const refused = g.count - g.redrivable;
      actions.appendChild(button('Re-drive all', 'bulk-redrive', () => bulk('redrive', g,
        'Re-drive all ' + what + '? Each is sent again to its topic.'
        + (refused > 0 ? ' ' + refused + ' without an event id will be refused.' : ''))));
    } else {
      const note = document.createElement('span');
      note.className = 'no-redrive';
      note.textContent = 'no event id: discard only';
      actions.appendChild(note);
    }
    actions.appendChild(document.createTextNode(' '));
    actions.appendChild(button('Discard all', 'bulk-discard danger', () => bulk('discard', g,
      'Discard all ' + what + '? This service then re-drives their events to ' + g.consumer + ' no more.')));
  });
  $('no-groups').hidden = groups.length > 0;
  return groups;
}

// a dead-letter group's row: consumer, failure and count, the row named by them for tests and styles
function groupRow(body, group) {
  const row = body.insertRow();
  row.dataset.consumer = group.consumer;
  row.dataset.failure = group.failure;
  cell(row, group.consumer);
  cell(row, group.failure);
  cell(row, group.count, 'num count');
  return row;
}

// a bulk answer's refusals, by message id with a count and an example each
function refusedText(refused) {
  return Object.entries(refused).map(([id, x]) => x.count + ' refused ' + id + ' (e.g. ' + x.example.slice(0, 300) + ')')
    .join(', ') || '0 refused';
}

// returns false when the operator cancelled
async function bulk(action, group, question) {
  if (!window.confirm(question)) return false;
  const response = await call('POST', '/dead-letters/bulk', 'application/json',
    { action, consumer: group.consumer, failure: group.failure });
  const text = await response.text();
  const what = action + ' of ' + group.consumer + ' / ' + group.failure;
  let summary = text.slice(0, 2000);
  if (response.ok) {
    const r = JSON.parse(text);
    summary = r.done + ' done, ' + r.alreadyTaken + ' under way elsewhere, '
      + refusedText(r.refused)
      + (r.notTried ? ', ' + r.notTried + ' not tried' : '') + (r.moreInGroup ? '; more remain, click again' : '');
  }
  $('action').textContent = (response.ok ? 'Done: ' : 'Refused: ') + what + ': '
    + (response.ok ? '' : 'HTTP ' + response.status + ' ') + summary;
  $('action').className = response.ok ? 'status ok' : 'status error';
  shownGroups = '';
  await refresh();
  return true;
}

function button(label, cls, onClick) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = label;
  b.className = cls;
  b.addEventListener('click', async () => { b.disabled = true; if (!(await onClick())) b.disabled = false; });
  return b;
}

// returns false when the operator cancelled, so that the button can be pressed again
async function act(method, path, letter, question) {
  if (question && !window.confirm(question)) return false;
  const response = await call(method, path);
  const text = await response.text();
  const what = (method === 'POST' ? 're-drive' : 'discard') + ' of dead letter ' + letter.id + ' (' + letter.consumer + ')';
  $('action').textContent = response.ok ? 'Done: ' + what + '.' : 'Refused: ' + what + ': HTTP ' + response.status + ' ' + text.slice(0, 2000);
  $('action').className = response.ok ? 'status ok' : 'status error';
  await refresh();
  return true;
}

// The text of an API refusal: the body's "error" (a message that starts with its id and says what to do), else
// the HTTP status alone: a server's or proxy's error page is not shown raw.
async function refusalText(response) {
  const text = await response.text();
  try {
    const body = JSON.parse(text);
    if (body && typeof body.error === 'string') return body.error;
  } catch (e) {
    // not JSON: fall through to the status
  }
  if (response.status === 401 || response.status === 403) {
    return 'HTTP ' + response.status + ': this user may not do that (role billing-operator needed).';
  }
  return 'HTTP ' + response.status + ' ' + response.statusText + ': the server could not do it; its log says why.';
}

// how long ago an ISO time was, in the two largest units
function age(since) {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(since.replace(/(\.\d{3})\d+/, '$1'))) / 1000));
  if (!Number.isFinite(s)) return since;
  if (s < 60) return s + ' s';
  if (s < 3600) return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
  if (s < 86400) return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
  return Math.floor(s / 86400) + ' d ' + Math.floor((s % 86400) / 3600) + ' h';
}

let shownSequences = '';   // as shownLetters: rows redrawn only when a sequence changes; the ages move in place
let shownSequenceGroups = '';

// the open sequences of dead-letter order by key, one row each, with re-drive, discard head and discard (operators
// only, as the API: a key and a head's reason quote event data)
async function showSequences(groups) {
  const list = await json('/dead-letters/sequences?limit=100');
  const shown = JSON.stringify(list);
  if (shown !== shownSequences) {
    shownSequences = shown;
    const body = $('sequences').tBodies[0];
    body.replaceChildren();
    list.forEach((s) => {
      const row = body.insertRow();
      row.dataset.consumer = s.consumer;
      row.dataset.key = s.key;
      cell(row, s.consumer);
      cell(row, s.key, 'key');
      cell(row, s.headError || '(no reason recorded)', 'reason').title = 'dead letter ' + s.headDeadLetter;
      cell(row, s.parked, 'num parked');
      const oldest = cell(row, s.oldestParkedAt ? age(s.oldestParkedAt) : 'none parked', s.oldestParkedAt ? 'age' : '');
      if (s.oldestParkedAt) {
        oldest.dataset.since = s.oldestParkedAt;
        oldest.title = 'parked since ' + s.oldestParkedAt;
      }
      cell(row, s.openedAt);
      const actions = row.insertCell();
      const what = 'sequence of key ' + s.key + ' of ' + s.consumer;
      const waiting = s.parked + ' parked event' + (s.parked === 1 ? '' : 's');
      const redrive = button('Re-drive', 'seq-redrive', () => sequenceAct('redrive', s));
      redrive.title = 'Delivers the head, then the ' + waiting + ', in order, through ' + s.consumer + '\'s inbox';
      actions.append(redrive, ' ',
        button('Discard head', 'seq-discard-head danger', () => sequenceAct('discard-head', s,
          'Discard the head of the ' + what + ' (dead letter ' + s.headDeadLetter + ', never processed) and deliver the '
            + waiting + ' behind it, in order?')), ' ',
        button('Discard sequence', 'seq-discard danger', () => sequenceAct('discard', s,
          'Discard the whole ' + what + '? Its head and the ' + waiting + ' are kept as discarded dead letters; '
            + 'none of them is processed.')));
    });
    $('no-sequences').hidden = list.length > 0;
  }
  document.querySelectorAll('#sequences td.age').forEach((td) => { td.textContent = age(td.dataset.since); });
  showSequenceGroups(groups, list);
}

// the dead-letter groups of the consumers that have open sequences, for the bulk calls on sequences (operators)
function showSequenceGroups(groups, sequences) {
  const consumers = new Set(sequences.map((s) => s.consumer));
  const list = groups.filter((g) => consumers.has(g.consumer));
  const shown = JSON.stringify(list);
  $('sequence-groups-operator').hidden = list.length === 0;
  if (shown === shownSequenceGroups) return;
  shownSequenceGroups = shown;
  const body = $('sequence-groups').tBodies[0];
  body.replaceChildren();
  list.forEach((g) => {
    const row = groupRow(body, g);
    const what = 'the open sequences of ' + g.consumer + ' headed by a dead letter failing with ' + g.failure;
    row.insertCell().append(
      button('Re-drive sequences', 'seq-bulk-redrive', () => sequenceBulk('redrive', g,
        'Re-drive ' + what + '? Each delivers its head, then its parked events, in order.')), ' ',
      button('Discard sequences', 'seq-bulk-discard danger', () => sequenceBulk('discard', g,
        'Discard ' + what + ', whole? Their heads and parked events are kept as discarded dead letters; none is '
          + 'processed.')));
  });
}

const SEQUENCE_ACTIONS = { redrive: 're-drive', 'discard-head': 'discard of the head', discard: 'discard' };

function sequenceMessage(ok, text) {
  $('sequence-action').textContent = text;
  $('sequence-action').className = ok ? 'status ok' : 'status error';
}

// one call on one sequence; returns false when the operator cancelled
async function sequenceAct(action, s, question) {
  if (question && !window.confirm(question)) return false;
  const what = SEQUENCE_ACTIONS[action] + ' of the sequence of key ' + s.key + ' (' + s.consumer + ')';
  let response;
  try {
    response = await call('POST', '/dead-letters/sequences/' + action + '?consumer=' + encodeURIComponent(s.consumer)
      + '&key=' + encodeURIComponent(s.key));
  } catch (e) {
    sequenceMessage(false, 'Failed: ' + what + ': the API could not be reached (' + e.message + ').');
    return true;
  }
  if (response.ok) {
    const o = await response.json();
    sequenceMessage(true, 'Done: ' + what + ': ' + (o.status === 'STOPPED'
      ? o.delivered + ' delivered in order, then an event failed again: its dead letter ' + o.newHead
        + ' heads the sequence now and the rest stay parked.'
      : (action === 'discard' ? o.discarded + ' discarded unprocessed (the head included)'
        : (o.discarded ? 'the head discarded, ' : '') + o.delivered + ' delivered in order')
        + '; the sequence is closed.'));
  } else {
    sequenceMessage(false, 'Refused: ' + what + ': ' + await refusalText(response));
  }
  shownSequences = '';
  await refresh();
  return true;
}

// a bulk call on the sequences of one dead-letter group; returns false when the operator cancelled
async function sequenceBulk(action, group, question) {
  if (!window.confirm(question)) return false;
  const what = 'bulk ' + action + ' of the sequences of ' + group.consumer + ' / ' + group.failure;
  let response;
  try {
    response = await call('POST', '/dead-letters/sequences/bulk', 'application/json',
      { action, consumer: group.consumer, failure: group.failure });
  } catch (e) {
    sequenceMessage(false, 'Failed: ' + what + ': the API could not be reached (' + e.message + ').');
    return true;
  }
  if (response.ok) {
    const r = await response.json();
    sequenceMessage(true, 'Done: ' + what + ': ' + r.selected + ' selected, ' + r.closed + ' closed, ' + r.stopped
      + ' stopped at a new head, ' + r.alreadyTaken + ' under way elsewhere, ' + refusedText(r.refused)
      + (r.notTried ? ', ' + r.notTried + ' not tried' : '') + '; ' + r.delivered + ' event(s) delivered, '
      + r.discarded + ' discarded' + (r.moreInGroup ? '; more remain, click again' : '') + '.');
  } else {
    sequenceMessage(false, 'Refused: ' + what + ': ' + await refusalText(response));
  }
  shownSequences = '';
  await refresh();
  return true;
}

async function findInvoice(event) {
  event.preventDefault();
  const list = await json('/invoices?orderId=' + encodeURIComponent($('order-id').value.trim()));
  const body = $('invoices').tBodies[0];
  body.replaceChildren();
  list.forEach((i) => {
    const row = body.insertRow();
    cell(row, i.orderId);
    cell(row, i.amount, 'num');
    cell(row, i.currency);
    cell(row, i.createdAt);
  });
  if (list.length === 0) cell(body.insertRow(), 'no invoice for this order');
  $('invoices').hidden = false;
}

async function refresh() {
  try {
    if (!roleKnown) await readRole();
    const [consumers, purge, count] = await Promise.all([json('/inbox'), call('GET', '/inbox/purge'), json('/invoices/count')]);
    showConsumers(consumers);
    showPurge(purge.status === 200 ? await purge.json() : null);
    $('invoice-count').textContent = count.count;
    const groups = roleKnown ? await showGroups() : [];
    if (operator) await showSequences(groups);
    if (operator) await showDeadLetters();
    $('updated').textContent = new Date().toLocaleTimeString();
    $('error').textContent = '';
  } catch (e) {
    $('error').textContent = 'Could not refresh: ' + e.message;
  }
}

showRefresh();
$('login').addEventListener('submit', signIn);
$('sign-out').addEventListener('click', signOut);
$('invoice-search').addEventListener('submit', findInvoice);
