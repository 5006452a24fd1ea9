// The Security section of a key's page: its four allowlists (saved with PATCH /admin/keys/:id) and
// its key secret (POST / DELETE /admin/keys/:id/secret). It updates itself in place, so nothing
// typed elsewhere on the page is lost, and a new secret stays on screen until the page changes.
import {
  countProblem,
  describeSettings,
  isRestricted,
  LISTS,
  MAX_ENTRIES,
  parseLines,
  problemOf,
} from './allowlists.js';
import { ApiError } from './api.js';
import { copyButton, field, formProblems, h } from './dom.js';
import { curlExample } from './format.js';

/** Badges for a key with allowlists or a secret, for the key list and the key's heading. */
export function securityBadges(settings) {
  const texts = [isRestricted(settings) && 'restricted', settings.secretRequired && 'secret required'];
  // The spaces keep the words apart in the heading's accessible name.
  return texts.filter(Boolean).flatMap((text) => [' ', h('span', { className: 'badge info' }, text)]);
}

function selectLine(textarea, line) {
  const rows = textarea.value.split('\n');
  const start = rows.slice(0, line - 1).reduce((n, row) => n + row.length + 1, 0);
  textarea.setSelectionRange(start, start + rows[line - 1].length);
}

/**
 * The admin API's refusal of an allowlist, in words, beside the list and line it is about.
 * @returns {{ text: string, field?: any, line?: number } | undefined}
 */
function refusal(error, typed) {
  if (!(error instanceof ApiError && error.status === 400)) return undefined;
  const about = problemOf(error.message);
  const target = about && typed.find((t) => t.list === about.list);
  if (!target) return { text: `The gateway says: ${error.message}.` };
  if (about.index === undefined)
    return { field: target.field, text: `${about.list.label}: the gateway says it ${about.rule}.` };
  const line = target.lines[about.index];
  return {
    field: target.field,
    line,
    text: `${about.list.label}, line ${line} ("${target.entries[about.index]}"): the gateway says it ${about.rule}.`,
  };
}

/**
 * The Security section of a live key. Its dependencies come from the app: `api(method, path,
 * body)`, `confirm({ title, text, confirm })`, `networks()`, `explain(error)` (the text for a failed
 * call, or null when the session ended and the page has moved on) and `onChange(key)` after a save.
 */
export function securitySection(key, { api, confirm, networks, explain, onChange }) {
  const path = `/keys/${encodeURIComponent(key.id)}`;
  let current = key;
  const summary = h('p', { id: 'security-summary' }, describeSettings(key.settings));
  const changed = (updated) => {
    current = updated;
    summary.textContent = describeSettings(updated.settings);
    onChange(updated);
  };

  // ------------------------------------------------------------ allowlists

  const lists = LISTS.map((list) => {
    const counter = h('span', { className: 'counter' });
    const input = h('textarea', {
      rows: 3,
      spellcheck: 'false',
      autocapitalize: 'off',
      autocomplete: 'off',
    });
    const listField = field({
      id: `security-${list.id}`,
      label: list.label,
      hint: [list.hint, ' ', counter],
      input,
    });
    const count = () => {
      counter.textContent = `${parseLines(input.value).entries.length} of at most ${MAX_ENTRIES} entries.`;
    };
    const fill = (settings) => {
      input.value = settings[list.field].join('\n');
      count();
    };
    input.addEventListener('input', count);
    fill(key.settings);
    return { list, field: listField, fill };
  });
  const problems = h('div', {
    className: 'notice error',
    role: 'alert',
    hidden: true,
    id: 'security-problems',
  });
  const saved = h('p', { className: 'saved', role: 'status', id: 'security-saved' });
  const save = h('button', { type: 'submit' }, 'Save allowlists');
  const form = h(
    'form',
    { novalidate: true, 'aria-labelledby': 'allowlists-title' },
    h('h3', { id: 'allowlists-title' }, 'Allowlists'),
    h(
      'ul',
      { className: 'rules' },
      h('li', {}, 'An empty list allows everything.'),
      h(
        'li',
        {},
        'A request passes a list when it matches any one of its entries (entries combine with OR).',
      ),
      h('li', {}, 'A request must pass every list that has entries (lists combine with AND).'),
      h(
        'li',
        {},
        `One entry per line, at most ${MAX_ENTRIES} per list. A refused request gets HTTP 403 (error -32002, or -32041 on Solana networks) and costs no credits.`,
      ),
    ),
    problems,
    lists.map((l) => l.field.wrap),
    h('div', { className: 'actions' }, save),
    saved,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    saved.textContent = '';
    const typed = lists.map((l) => ({ ...l, ...parseLines(l.field.input.value) }));
    const found = [];
    for (const t of typed) {
      t.field.clear();
      const text = countProblem(t.list, t.entries.length);
      if (text) found.push({ field: t.field, text });
    }
    for (const p of found) p.field.setError(p.text);
    formProblems(problems, found);
    if (found.length) return;
    save.disabled = true;
    try {
      const updated = await api('PATCH', path, {
        settings: Object.fromEntries(typed.map((t) => [t.list.field, t.entries])),
      });
      // The gateway keeps origins and addresses in lower case: show what it stored.
      for (const l of lists) l.fill(updated.settings);
      changed(updated);
      saved.textContent = `Saved. ${describeSettings(updated.settings)}`;
    } catch (error) {
      /** @type {{ text: string | null, field?: any, line?: number }} */
      const problem = refusal(error, typed) ?? { text: explain(error) };
      if (problem.text === null) return;
      problem.field?.setError(problem.text);
      formProblems(problems, [problem]);
      if (problem.line) selectLine(problem.field.input, problem.line);
    } finally {
      save.disabled = false;
      // Disabling the focused button dropped focus to the page; give it back.
      if (document.activeElement === document.body) save.focus();
    }
  });

  // ------------------------------------------------------------ key secret

  const secretArea = h('div', { id: 'secret-area' });
  const secretError = h('div', { id: 'secret-error' });

  async function secretAction(method, question) {
    secretError.replaceChildren();
    if (!(await confirm(question))) return;
    try {
      const updated = await api(method, `${path}/secret`);
      saved.textContent = '';
      changed(updated);
      await showSecret(updated.secret, { moveFocus: true });
    } catch (error) {
      const text = explain(error);
      if (text !== null)
        secretError.replaceChildren(h('div', { className: 'notice error', role: 'alert' }, text));
    }
  }

  const requireSecret = () =>
    secretAction('POST', {
      title: `Require a secret for ${current.name}?`,
      text: 'Requests without the secret get 403 from now on. The secret is shown once, right after this.',
      confirm: 'Require a secret',
    });
  const replaceSecret = () =>
    secretAction('POST', {
      title: `Replace the secret of ${current.name}?`,
      text: 'The current secret stops working at once: requests with it get 403. The new one is shown once.',
      confirm: 'Replace secret',
    });
  const removeSecret = () =>
    secretAction('DELETE', {
      title: `Remove the secret of ${current.name}?`,
      text: 'The key alone will be enough again: anyone with the key text can use it, within its allowlists.',
      confirm: 'Remove secret',
    });

  /** The secret area; `secret` only right after it was generated, the one time it is known. */
  async function showSecret(secret, { moveFocus = false } = {}) {
    const nodes = [];
    if (secret) {
      const list = await networks().catch(() => []);
      const network = list[0];
      const curl = network
        ? curlExample(`${network.baseUrl}/v3/YOUR_API_KEY`, network.kind, { secret })
        : undefined;
      nodes.push(
        h(
          'section',
          { className: 'notice warning', 'aria-labelledby': 'new-secret-title' },
          h('h4', { id: 'new-secret-title', tabindex: -1 }, 'Copy the secret now'),
          h('p', {}, 'This is the only time it is shown: the gateway keeps only a hash of it.'),
          h(
            'div',
            { className: 'copy-row' },
            h('code', { id: 'key-secret', className: 'secret' }, secret),
            copyButton('key secret', secret),
          ),
          curl
            ? [
                h(
                  'p',
                  { className: 'hint' },
                  `Send it with HTTP Basic authentication, with any user name (curl -u ':secret'). Replace YOUR_API_KEY with the key (it starts with ${current.prefix}…):`,
                ),
                h(
                  'div',
                  { className: 'copy-row' },
                  h('pre', {}, h('code', { className: 'curl', id: 'secret-curl' }, curl)),
                  copyButton(`curl example with the secret for ${network.name}`, curl),
                ),
                current.settings.allowedOrigins.length
                  ? h(
                      'p',
                      { className: 'hint' },
                      "This key also has an origins allowlist, so curl (which sends no Origin header) is refused until you add -H 'Origin: …' with an allowed origin.",
                    )
                  : null,
              ]
            : null,
        ),
      );
    }
    if (current.settings.secretRequired) {
      nodes.push(
        h('p', {}, 'A secret is required: requests without it, or with a wrong one, get 403.'),
        h(
          'div',
          { className: 'actions' },
          h('button', { type: 'button', className: 'secondary', onclick: replaceSecret }, 'Replace secret…'),
          h('button', { type: 'button', className: 'danger', onclick: removeSecret }, 'Remove secret…'),
        ),
      );
    } else {
      nodes.push(
        h(
          'p',
          {},
          'No secret: the key in the address is enough. For calls from servers, require a secret sent with HTTP Basic authentication as well; never put it in a web page.',
        ),
        h(
          'div',
          { className: 'actions' },
          h('button', { type: 'button', onclick: requireSecret }, 'Require a secret…'),
        ),
      );
    }
    secretArea.replaceChildren(...nodes);
    // The button that opened the confirmation is gone: focus goes to what replaced it.
    if (moveFocus) secretArea.querySelector(secret ? '#new-secret-title' : 'button')?.focus();
  }
  void showSecret(undefined);

  return h(
    'section',
    { className: 'card', id: 'security', 'aria-labelledby': 'security-title' },
    h('h2', { id: 'security-title' }, 'Security'),
    summary,
    form,
    h(
      'section',
      { 'aria-labelledby': 'secret-title' },
      h('h3', { id: 'secret-title' }, 'Key secret'),
      secretError,
      secretArea,
    ),
  );
}
