// Usage: credits per day and per method, errors, for all keys or one, over the last days.
import { api } from '../admin.js';
import { ApiError } from '../api.js';
import { barChart } from '../charts.js';
import { h } from '../dom.js';
import { errorMeaning, formatDecimal, formatNumber, formatUntil, formatUtc, lastDays } from '../format.js';
import { go, rerender } from '../navigation.js';
import { errorView, show } from '../view.js';
import { groupByProject, usageMeter } from './keys.js';

const USAGE_DAYS = 14;

/** Numeric columns align right; `wide` columns are left out on narrow screens. */
function cellClass(column) {
  return [column.numeric ? 'num' : '', column.wide ? 'wide-only' : ''].join(' ').trim() || null;
}

function table({ caption, id, columns, rows, empty }) {
  if (rows.length === 0) return h('p', { className: 'empty', id }, empty);
  return h(
    'div',
    { className: 'table-wrap' },
    h(
      'table',
      { id },
      h('caption', {}, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          columns.map((c) => h('th', { scope: 'col', className: cellClass(c) }, c.label)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((row) =>
          h(
            'tr',
            {},
            columns.map((c, i) =>
              h(
                i === 0 ? 'th' : 'td',
                { scope: i === 0 ? 'row' : null, className: cellClass(c) },
                c.value(row),
              ),
            ),
          ),
        ),
      ),
    ),
  );
}

function chartFigure({ id, title, labels, values, seriesLabel, rotateLabels = false, summary }) {
  const plotArea = h('div', { className: 'chart', role: 'img', 'aria-label': `${title}. ${summary}` });
  const figure = h('figure', { className: 'card chart-card', id }, h('figcaption', {}, title), plotArea);
  return {
    figure,
    draw: () => barChart(plotArea, { labels, values, seriesLabel, rotateLabels }),
  };
}

export async function usageView(ticket, params) {
  const keyId = params.get('key');
  const projectName = params.get('project');
  const days = lastDays(USAGE_DAYS);
  let keys;
  let usage;
  try {
    const query = new URLSearchParams({ from: days[0] });
    if (keyId) query.set('keyId', keyId);
    [keys, usage] = await Promise.all([
      api('GET', '/keys').then((r) => r.keys),
      api('GET', `/usage?${query}`),
    ]);
  } catch (error) {
    return errorView(ticket, error, () => rerender());
  }
  const key = keyId ? keys.find((k) => k.id === keyId) : undefined;
  if (keyId && !key) {
    return errorView(
      ticket,
      new ApiError({
        method: 'GET',
        path: '/admin/keys',
        status: 404,
        code: 'KEY_NOT_FOUND',
        message: `no key with id ${keyId}`,
      }),
      () => go('#/usage'),
    );
  }
  const inScope = key ? [key] : projectName !== null ? keys.filter((k) => k.project === projectName) : keys;
  const ids = new Set(inScope.map((k) => k.id));
  const rows = usage.usage.filter((r) => ids.has(r.keyId));
  const errors = usage.errors.filter((r) => ids.has(r.keyId));
  const scopeLabel = key ? `key ${key.name}` : projectName !== null ? `project ${projectName}` : 'all keys';

  // Scope picker
  const select = h(
    'select',
    { id: 'scope' },
    h('option', { value: '' }, 'All keys'),
    groupByProject(keys).map(([project, projectKeys]) =>
      h(
        'optgroup',
        { label: `Project ${project}` },
        h('option', { value: `project=${encodeURIComponent(project)}` }, `Project ${project} (all its keys)`),
        projectKeys.map((k) =>
          h(
            'option',
            { value: `key=${encodeURIComponent(k.id)}` },
            `${k.name} (${k.prefix}…)${k.revokedAt ? ', revoked' : ''}`,
          ),
        ),
      ),
    ),
  );
  select.value = key
    ? `key=${encodeURIComponent(key.id)}`
    : projectName !== null
      ? `project=${encodeURIComponent(projectName)}`
      : '';
  select.addEventListener('change', () => go(select.value ? `#/usage?${select.value}` : '#/usage'));

  // Today's balance (live keys in scope)
  const live = inScope.filter((k) => k.revokedAt === null);
  const used = live.reduce((n, k) => n + k.creditsUsedToday, 0);
  const cap = live.reduce((n, k) => n + k.dailyCredits, 0);
  const remaining = live.reduce((n, k) => n + k.creditsRemainingToday, 0);
  const resetsAt =
    inScope[0]?.resetsAt ?? new Date(Date.parse(`${days.at(-1)}T00:00:00Z`) + 86_400_000).toISOString();

  // Per day and per method
  const perDay = new Map(days.map((d) => [d, 0]));
  const perMethod = new Map();
  let totalCredits = 0;
  let totalRequests = 0;
  for (const row of rows) {
    perDay.set(row.day, (perDay.get(row.day) ?? 0) + row.credits);
    const m = perMethod.get(row.method) ?? { method: row.method, requests: 0, credits: 0, refused: 0 };
    m.requests += row.requests;
    m.credits += row.credits;
    // Refused calls (an error that cost nothing) are counted apart: the average is per charged call.
    m.refused += row.refused ?? 0;
    perMethod.set(row.method, m);
    totalCredits += row.credits;
    totalRequests += row.requests;
  }
  const methods = [...perMethod.values()].sort((a, b) => b.credits - a.credits || b.requests - a.requests);
  const perCode = new Map();
  for (const e of errors) perCode.set(e.code, (perCode.get(e.code) ?? 0) + e.count);
  const codes = [...perCode].map(([code, count]) => ({ code, count })).sort((a, b) => b.count - a.count);

  const busiest = [...perDay].reduce((best, day) => (day[1] > best[1] ? day : best), ['', 0]);
  const dayChart = chartFigure({
    id: 'chart-days',
    title: `Credits per day, last ${USAGE_DAYS} UTC days`,
    labels: days.map((d) => d.slice(5)),
    values: days.map((d) => perDay.get(d)),
    seriesLabel: 'Credits',
    summary:
      totalCredits === 0
        ? 'No credits spent.'
        : `${formatNumber(totalCredits)} credits in all; most on ${busiest[0]} (${formatNumber(busiest[1])}).`,
  });
  const topMethods = methods.slice(0, 10);
  const methodChart = chartFigure({
    id: 'chart-methods',
    title: `Credits per method, last ${USAGE_DAYS} days (top ${topMethods.length || 10})`,
    labels: topMethods.map((m) => m.method),
    values: topMethods.map((m) => m.credits),
    seriesLabel: 'Credits',
    rotateLabels: true,
    summary:
      topMethods.length === 0
        ? 'No methods called.'
        : `Most credits: ${topMethods[0].method} (${formatNumber(topMethods[0].credits)}).`,
  });

  const shown = show(
    ticket,
    'Usage',
    h(
      'div',
      { className: 'view-head' },
      h('h1', {}, 'Usage'),
      h('button', { type: 'button', className: 'secondary', onclick: () => rerender() }, 'Refresh'),
    ),
    h('div', { className: 'field scope' }, h('label', { for: 'scope' }, 'Show usage for'), select),
    h(
      'section',
      {
        className: 'card balance',
        id: 'usage-summary',
        'aria-labelledby': 'balance-title',
        'data-total-credits': totalCredits,
        'data-total-requests': totalRequests,
      },
      h('h2', { id: 'balance-title' }, `Today’s balance, ${scopeLabel}`),
      live.length === 0
        ? h('p', {}, 'No live key in this scope.')
        : [
            h(
              'p',
              { className: 'big' },
              h('span', { id: 'remaining-today' }, formatNumber(remaining)),
              ` of ${formatNumber(cap)} credits left today`,
            ),
            h('label', { for: 'balance-meter', className: 'visually-hidden' }, 'Credits used today'),
            usageMeter(used, cap, 'balance-meter'),
            h(
              'p',
              {},
              `${formatNumber(used)} used today (UTC). Balances reset at ${formatUtc(resetsAt)}, in ${formatUntil(resetsAt)}.`,
            ),
          ],
      h(
        'p',
        { className: 'muted' },
        `Last ${USAGE_DAYS} days: ${formatNumber(totalRequests)} requests, ${formatNumber(totalCredits)} credits.`,
      ),
    ),
    h('div', { className: 'charts' }, dayChart.figure, methodChart.figure),
    h(
      'section',
      { 'aria-labelledby': 'methods-title' },
      h('h2', { id: 'methods-title' }, 'Most expensive methods'),
      table({
        id: 'methods-table',
        caption: `Credits by method, ${scopeLabel}, last ${USAGE_DAYS} days`,
        empty: 'No requests yet in this period. Usage appears here within a second of a request.',
        columns: [
          { label: 'Method', value: (m) => h('code', {}, m.method) },
          { label: 'Credits', numeric: true, value: (m) => formatNumber(m.credits) },
          { label: 'Requests', numeric: true, value: (m) => formatNumber(m.requests) },
          { label: 'Refused (free)', wide: true, numeric: true, value: (m) => formatNumber(m.refused) },
          {
            label: 'Avg credits',
            wide: true,
            numeric: true,
            value: (m) =>
              m.requests > m.refused ? formatDecimal(m.credits / (m.requests - m.refused)) : '–',
          },
          {
            label: 'Share',
            wide: true,
            numeric: true,
            value: (m) => (totalCredits ? `${formatDecimal((m.credits / totalCredits) * 100)} %` : '–'),
          },
        ],
        rows: methods,
      }),
    ),
    h(
      'section',
      { 'aria-labelledby': 'errors-title' },
      h('h2', { id: 'errors-title' }, 'Errors by code'),
      table({
        id: 'errors-table',
        caption: `Error answers, ${scopeLabel}, last ${USAGE_DAYS} days`,
        empty: 'No error answers in this period.',
        columns: [
          { label: 'Code', value: (e) => h('code', {}, String(e.code)) },
          { label: 'Meaning', value: (e) => errorMeaning(e.code) },
          { label: 'Count', numeric: true, value: (e) => formatNumber(e.count) },
        ],
        rows: codes,
      }),
    ),
    h(
      'details',
      {},
      h('summary', {}, 'Credits per day as a table'),
      table({
        id: 'days-table',
        caption: `Credits per UTC day, ${scopeLabel}`,
        empty: '',
        columns: [
          { label: 'Day', value: (d) => d[0] },
          { label: 'Credits', numeric: true, value: (d) => formatNumber(d[1]) },
        ],
        rows: [...perDay],
      }),
    ),
  );
  if (shown) {
    dayChart.draw();
    methodChart.draw();
  }
}
