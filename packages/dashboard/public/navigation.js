// Moving between views: the hash route, a message shown once on the next view, and the hook the
// router registers to draw the current route again.
import { h } from './dom.js';

/** A message shown once at the top of the next view (after a redirect or a change). */
let flash = null;
let renderer = () => {};

/** The router's render function (app.js). */
export function setRenderer(render) {
  renderer = render;
}

/** Draws the current route again. */
export function rerender() {
  void renderer();
}

export function setFlash(message) {
  flash = message;
}

export function flashBox() {
  if (!flash) return null;
  const box = h(
    'div',
    { className: `notice ${flash.kind}`, role: flash.kind === 'error' ? 'alert' : 'status' },
    flash.text,
  );
  flash = null;
  return box;
}

export function go(hash) {
  if (location.hash === hash) rerender();
  else location.hash = hash;
}
