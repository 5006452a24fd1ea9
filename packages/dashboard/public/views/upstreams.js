// Each network's upstream nodes as the gateway sees them (head, lag, cordon, refused methods,
// oldest state held), with a button to cordon an upstream for maintenance and to put it back.
import { api } from '../admin.js';
import { announce, h } from '../dom.js';
import { formatNumber } from '../format.js';
import { flashBox, go, setFlash } from '../navigation.js';
import { errorView, inlineError, show } from '../view.js';

/** What an upstream is doing, in words. */
export function upstreamStatus(upstream) {
  if (upstream.cordoned)
    return upstream.drained ? 'cordoned, drained' : `cordoned, ${upstream.inFlight} call(s) finishing`;
  if (upstream.breaker === 'open') return 'down (breaker open)';
  if (upstream.head < 0) return 'no head reported';
  if (upstream.lagging) return `lagging ${formatNumber(upstream.lag)} blocks`;
  return 'in service';
}

function upstreamRow(network, upstream, errorSlot) {
  const label = `${upstream.name} (${upstream.host})`;
  const action = upstream.cordoned ? 'uncordon' : 'cordon';
  const button = h(
    'button',
    {
      type: 'button',
      className: upstream.cordoned ? null : 'secondary',
      'aria-label': `${upstream.cordoned ? 'Uncordon' : 'Cordon'} ${label} on ${network}`,
      onclick: async () => {
        button.setAttribute('disabled', '');
        try {
          await api(
            'POST',
            `/upstreams/${encodeURIComponent(network)}/${encodeURIComponent(upstream.name)}/${action}`,
          );
          const text =
            action === 'cordon'
              ? `${label} on ${network} is cordoned: no new calls reach it; calls in flight finish.`
              : `${label} on ${network} is back in service.`;
          setFlash({ kind: 'success', text });
          announce(text);
          go('#/upstreams');
        } catch (error) {
          button.removeAttribute('disabled');
          errorSlot.replaceChildren(inlineError(error));
        }
      },
    },
    upstream.cordoned ? 'Uncordon' : 'Cordon',
  );
  return h(
    'tr',
    { 'data-upstream': `${network}/${upstream.name}` },
    h('th', { scope: 'row' }, upstream.name, h('div', { className: 'muted' }, upstream.host)),
    h('td', { className: 'status' }, upstreamStatus(upstream)),
    h(
      'td',
      { className: 'num head' },
      upstream.head < 0 ? '—' : formatNumber(upstream.head),
      // Whether the node pushes its heads (newHeads on its WebSocket) or they are only polled.
      h('div', { className: 'muted' }, upstream.headsPushed ? 'pushed' : 'polled'),
    ),
    h('td', { className: 'num' }, upstream.lag < 0 ? '—' : formatNumber(upstream.lag)),
    h('td', { className: 'wide-only' }, upstream.methodsRefused.join(', ') || 'none'),
    h(
      'td',
      { className: 'num wide-only' },
      upstream.oldestState > 0 ? formatNumber(upstream.oldestState) : 'all',
    ),
    h('td', {}, button),
  );
}

export async function upstreamsView(ticket) {
  let networks;
  try {
    networks = (await api('GET', '/upstreams')).networks;
  } catch (error) {
    return errorView(ticket, error, () => go('#/upstreams'));
  }
  const errorSlot = h('div', { id: 'upstream-error' });
  show(
    ticket,
    'Upstreams',
    h('div', { className: 'view-head' }, h('h1', {}, 'Upstream nodes')),
    flashBox(),
    h(
      'p',
      { className: 'lead' },
      'Cordon a node before maintenance: it gets no new calls, the calls in flight finish, and it shows "drained" when none is left. The cordon lasts until this gateway process restarts.',
    ),
    errorSlot,
    Object.entries(networks).map(([network, upstreams]) =>
      h(
        'section',
        { 'aria-labelledby': `network-${network}` },
        h('h2', { id: `network-${network}` }, network),
        h(
          'div',
          { className: 'table-wrap' },
          h(
            'table',
            {},
            h('caption', { className: 'visually-hidden' }, `Upstream nodes of ${network}`),
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                h('th', { scope: 'col' }, 'Upstream'),
                h('th', { scope: 'col' }, 'Status'),
                h('th', { scope: 'col', className: 'num' }, 'Head'),
                h('th', { scope: 'col', className: 'num' }, 'Lag'),
                h('th', { scope: 'col', className: 'wide-only' }, 'Methods refused'),
                h('th', { scope: 'col', className: 'num wide-only' }, 'Oldest state'),
                h('th', { scope: 'col' }, h('span', { className: 'visually-hidden' }, 'Action')),
              ),
            ),
            h(
              'tbody',
              {},
              upstreams.map((upstream) => upstreamRow(network, upstream, errorSlot)),
            ),
          ),
        ),
      ),
    ),
  );
}
