// DOM and form helpers shared by the dashboard's views: elements are built as nodes, never from
// HTML strings.

/** `h('p', { className: 'hint' }, 'text', child)`: an element with attributes, listeners and children. */
export function h(tag, attributes, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else if (name === 'className') element.className = value;
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  for (const child of children.flat(Number.POSITIVE_INFINITY)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

/** Reads `text` out to screen readers (the page's polite live region). */
export function announce(text) {
  const announcer = document.getElementById('announcer');
  announcer.textContent = '';
  // A fresh text node in a later task is read out even when the text repeats.
  setTimeout(() => {
    announcer.textContent = text;
  }, 50);
}

/** A labelled input with its hint and its error message (hidden until `setError`). */
export function field({ id, label, hint, input }) {
  const error = h('p', { id: `${id}-error`, className: 'field-error' });
  error.hidden = true;
  input.id = id;
  input.name = id;
  input.setAttribute('aria-describedby', [hint ? `${id}-hint` : '', `${id}-error`].join(' ').trim());
  const wrap = h(
    'div',
    { className: 'field' },
    h('label', { for: id }, label),
    hint ? h('p', { id: `${id}-hint`, className: 'hint' }, hint) : null,
    input,
    error,
  );
  return {
    wrap,
    input,
    setError(text) {
      error.textContent = text;
      error.hidden = false;
      input.setAttribute('aria-invalid', 'true');
    },
    clear() {
      error.textContent = '';
      error.hidden = true;
      input.removeAttribute('aria-invalid');
    },
  };
}

/** The box above a form listing what is wrong; focus goes to the first field in trouble. */
export function formProblems(summary, problems) {
  summary.replaceChildren();
  if (problems.length === 0) {
    summary.hidden = true;
    return;
  }
  summary.hidden = false;
  summary.append(
    h(
      'p',
      { className: 'summary-title' },
      problems.length === 1 ? 'There is a problem' : 'There are problems',
    ),
    h(
      'ul',
      {},
      problems.map((p) => h('li', {}, p.text)),
    ),
  );
  const first = problems.find((p) => p.field)?.field;
  if (first) first.input.focus();
}

/** A Copy button for `text`; when the clipboard is refused, the text beside it is selected instead. */
export function copyButton(label, text) {
  const button = h(
    'button',
    { type: 'button', className: 'secondary copy', 'aria-label': `Copy ${label}` },
    'Copy',
  );
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text);
      // The name changes with the visible text, so that it keeps containing what is shown.
      button.textContent = 'Copied';
      button.setAttribute('aria-label', `Copied ${label}`);
      announce(`${label} copied to the clipboard.`);
      setTimeout(() => {
        button.textContent = 'Copy';
        button.setAttribute('aria-label', `Copy ${label}`);
      }, 2000);
    } catch {
      const target = button.parentElement?.querySelector('code, input');
      if (target) {
        const range = document.createRange();
        range.selectNodeContents(target);
        getSelection()?.removeAllRanges();
        getSelection()?.addRange(range);
      }
      announce(`Could not copy automatically: the ${label} is selected, press Ctrl+C to copy it.`);
    }
  });
  return button;
}

/** Asks in the page's confirmation dialog; resolves true when the person confirmed. */
export function confirmDialog({ title, text, confirm }) {
  const dialog = /** @type {HTMLDialogElement} */ (document.getElementById('confirm'));
  document.getElementById('confirm-title').textContent = title;
  document.getElementById('confirm-text').textContent = text;
  document.getElementById('confirm-button').textContent = confirm;
  dialog.returnValue = '';
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue === 'confirm'), { once: true });
    dialog.showModal();
  });
}
