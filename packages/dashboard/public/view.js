// Showing a view: the page's main area, the render ticket that lets only the latest navigation
// draw, and the full-page and inline error views of a failed admin call.
import { describeFailure, hintFor, SignedOut } from './admin.js';
import { destroyCharts } from './charts.js';
import { h } from './dom.js';

export const main = document.getElementById('main');
export const nav = document.getElementById('nav');

let renderTicket = 0;

/** A ticket for a new navigation: views drawn with an older one are dropped. */
export function nextTicket() {
  renderTicket += 1;
  return renderTicket;
}

/** Replaces the view (unless a newer navigation started meanwhile) and moves focus to its heading. */
export function show(ticket, title, ...nodes) {
  if (ticket !== renderTicket) return false;
  destroyCharts();
  main.replaceChildren(...nodes.flat().filter(Boolean));
  document.title = `${title} · Portico dashboard`;
  const heading = main.querySelector('h1');
  if (heading) {
    heading.tabIndex = -1;
    heading.focus({ preventScroll: true });
  }
  window.scrollTo(0, 0);
  return true;
}

/** A full-page error view for a failed admin call, with a way to retry. */
export function errorView(ticket, error, retry) {
  if (error instanceof SignedOut) return;
  show(
    ticket,
    'Error',
    h(
      'section',
      { className: 'error-page', 'aria-labelledby': 'error-title' },
      h('h1', { id: 'error-title' }, 'The admin API request failed'),
      h('p', { className: 'notice error', role: 'alert', id: 'error-detail' }, describeFailure(error)),
      h('p', {}, hintFor(error)),
      h(
        'div',
        { className: 'actions' },
        h('button', { type: 'button', onclick: retry }, 'Try again'),
        h('a', { href: '#/keys', className: 'button secondary' }, 'Back to keys'),
      ),
    ),
  );
}

/** An error box inside a view (for actions such as rotate or revoke). */
export function inlineError(error) {
  return h(
    'div',
    { className: 'notice error', role: 'alert' },
    h('p', {}, describeFailure(error)),
    h('p', {}, hintFor(error)),
  );
}
