// The Portico dashboard: a small single-page app over the gateway's admin API.
// Views are plain functions that build DOM nodes (never HTML strings); the route is the URL hash.
import { ApiError, adminRequest, clearToken, getToken, setToken } from './api.js';
import { barChart, destroyCharts } from './charts.js';
import { announce, confirmDialog, copyButton, field, formProblems, h } from './dom.js';
import {
  curlExample,
  errorMeaning,
  formatDecimal,
  formatNumber,
  formatUntil,
  formatUtc,
  lastDays,
  parseWholeNumber,
} from './format.js';
import { securityBadges, securitySection } from './security.js';

const main = document.getElementById('main');
const nav = document.getElementById('nav');

const USAGE_DAYS = 14;

// ---------------------------------------------------------------- view state

/** A message shown once at the top of the next view (after a redirect or a change). */
let flash = null;

function flashBox() {
  if (!flash) return null;
  const box = h(
    'div',
    { className: `notice ${flash.kind}`, role: flash.kind === 'error' ? 'alert' : 'status' },
    flash.text,
  );
  flash = null;
  return box;
}

let renderTicket = 0;

/** Replaces the view (unless a newer navigation started meanwhile) and moves focus to its heading. */
function show(ticket, title, ...nodes) {
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

function go(hash) {
  if (location.hash === hash) void render();
  else location.hash = hash;
}

// ---------------------------------------------------------------- admin API errors

/** Thrown after the gateway refused the session's token: the view is already the sign-in page. */
class SignedOut extends Error {}

async function api(method, path, body) {
  try {
    return await adminRequest(method, path, { body });
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      clearToken();
      flash = {
        kind: 'error',
        text: 'The gateway no longer accepts the admin token of this session (it may have been changed). Sign in again.',
      };
      go('#/signin');
      throw new SignedOut();
    }
    throw error;
  }
}

function describeFailure(error) {
  if (!(error instanceof ApiError)) return `Unexpected error in the dashboard: ${error?.message ?? error}`;
  const status = error.status ? `HTTP ${error.status}` : 'no answer';
  return `${error.method} ${error.path} failed (${status}, ${error.code}): ${error.message}.`;
}

function hintFor(error) {
  if (!(error instanceof ApiError))
    return 'Reload the page; if it happens again, report it with the text above.';
  if (error.status === 0)
    return 'Check that the gateway is running (portico dev prints its address) and reload this page.';
  if (error.status === 404)
    return error.code === 'not_found' && error.message.includes('disabled')
      ? 'The gateway runs without an admin token, so its admin API is off. Start it with adminToken set.'
      : 'It may have been removed or never existed. Go back to the keys and pick it again.';
  if (error.status === 400 || error.status === 413)
    return 'The gateway rejected the request as invalid. Check what was entered and try again.';
  if (error.code === 'bad_response')
    return 'Something other than the gateway answered (a proxy in front of it?). Check the address of this page.';
  if (error.status >= 500) return 'The gateway failed while answering; its log has the details. Try again.';
  return 'Try again; if it keeps failing, check the gateway log.';
}

/** A full-page error view for a failed admin call, with a way to retry. */
function errorView(ticket, error, retry) {
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
function inlineError(error) {
  return h(
    'div',
    { className: 'notice error', role: 'alert' },
    h('p', {}, describeFailure(error)),
    h('p', {}, hintFor(error)),
  );
}

// ---------------------------------------------------------------- forms

/** Server field names → form fields, for the admin API's `<field> must …` messages. */
function serverProblem(error, fields) {
  if (error instanceof ApiError && error.status === 400) {
    const name = error.message.split(/\s/)[0];
    const target = fields[name];
    const text = `The gateway says: ${error.message}.`;
    if (target) target.setError(text);
    return { field: target, text };
  }
  return { text: `${describeFailure(error)} ${hintFor(error)}` };
}

function numberInput(value) {
  return h('input', {
    type: 'text',
    inputmode: 'numeric',
    autocomplete: 'off',
    value: value === null || value === undefined ? '' : String(value),
  });
}

/** Name, daily cap and per-second cap, as the create and edit forms share them. */
function keySettingsFields(key, idPrefix) {
  const name = field({
    id: `${idPrefix}name`,
    label: 'Name',
    hint: 'For you: the app or environment that uses the key. At most 100 characters.',
    input: h('input', { type: 'text', autocomplete: 'off', value: key?.name ?? '' }),
  });
  const daily = field({
    id: `${idPrefix}daily`,
    label: 'Daily credit cap',
    hint: 'Credits the key may spend per UTC day; 0 blocks it.',
    input: numberInput(key ? key.dailyCredits : 3000000),
  });
  const perSecond = field({
    id: `${idPrefix}per-second`,
    label: 'Per-second cap (optional)',
    hint: 'Credits the key may spend per second. Leave empty for no per-second cap.',
    input: numberInput(key?.creditsPerSecond),
  });
  return { name, daily, perSecond };
}

function readKeySettings({ name, daily, perSecond }) {
  const problems = [];
  const values = {};
  const typedName = name.input.value.trim();
  if (typedName === '') problems.push({ field: name, text: 'Name is required: type a name for the key.' });
  else if (typedName.length > 100)
    problems.push({
      field: name,
      text: `Name is ${typedName.length} characters long; at most 100 are allowed.`,
    });
  else values.name = typedName;
  const dailyValue = parseWholeNumber(daily.input.value, { label: 'Daily credit cap' });
  if (dailyValue.error) problems.push({ field: daily, text: dailyValue.error });
  else values.dailyCredits = dailyValue.value;
  const perSecondValue = parseWholeNumber(perSecond.input.value, {
    label: 'Per-second cap',
    min: 1,
    optional: true,
    emptyMeans: 'no per-second cap',
  });
  if (perSecondValue.error) problems.push({ field: perSecond, text: perSecondValue.error });
  else values.creditsPerSecond = perSecondValue.value;
  for (const p of problems) p.field.setError(p.text);
  return { problems, values };
}

// ---------------------------------------------------------------- networks (cached per session)

let networksCache = null;

async function networks() {
  networksCache ??= (await api('GET', '/networks')).networks;
  return networksCache;
}

// ---------------------------------------------------------------- views

function signInView(ticket) {
  nav.hidden = true;
  const token = field({
    id: 'token',
    label: 'Admin token',
    hint: 'The gateway’s admin token. portico dev prints it at start and keeps it in its data folder (admin-token).',
    input: h('input', { type: 'password', autocomplete: 'off', spellcheck: 'false' }),
  });
  const summary = h('div', { className: 'notice error', role: 'alert', hidden: true });
  const button = h('button', { type: 'submit' }, 'Sign in');
  const form = h(
    'form',
    { novalidate: true, className: 'card narrow-form', 'aria-labelledby': 'signin-title' },
    summary,
    token.wrap,
    h('div', { className: 'actions' }, button),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    token.clear();
    const typed = token.input.value.trim();
    if (typed === '') {
      token.setError('Enter the admin token.');
      formProblems(summary, [{ field: token, text: 'Enter the admin token.' }]);
      return;
    }
    button.disabled = true;
    try {
      networksCache = (await adminRequest('GET', '/networks', { token: typed })).networks;
      setToken(typed);
      announce('Signed in.');
      go('#/keys');
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        const text =
          'The gateway did not accept this admin token. Check it for missing or extra characters; portico dev prints the token when it starts.';
        token.setError(text);
        formProblems(summary, [{ field: token, text }]);
      } else {
        formProblems(summary, [{ field: token, text: `${describeFailure(error)} ${hintFor(error)}` }]);
      }
    } finally {
      button.disabled = false;
    }
  });
  show(
    ticket,
    'Sign in',
    h(
      'section',
      { className: 'signin' },
      h('h1', { id: 'signin-title' }, 'Sign in'),
      h(
        'p',
        {},
        'Manage the gateway’s API keys, their limits and usage. Only the operator holding the admin token can sign in.',
      ),
      flashBox(),
      form,
    ),
  );
}

function groupByProject(keys) {
  const projects = new Map();
  for (const key of keys) {
    if (!projects.has(key.project)) projects.set(key.project, []);
    projects.get(key.project).push(key);
  }
  return [...projects].sort(([a], [b]) => a.localeCompare(b));
}

function usageMeter(used, cap, id) {
  return h('meter', {
    id,
    min: 0,
    max: Math.max(cap, 1),
    value: Math.min(used, Math.max(cap, 1)),
    high: cap * 0.8,
  });
}

function keyCard(key) {
  const revoked = key.revokedAt !== null;
  const meterId = `meter-${key.id}`;
  return h(
    'li',
    { className: `key-card${revoked ? ' revoked' : ''}`, 'data-key-id': key.id },
    h(
      'h3',
      {},
      h('a', { href: `#/keys/${encodeURIComponent(key.id)}` }, key.name),
      revoked ? [' ', h('span', { className: 'badge' }, 'revoked')] : securityBadges(key.settings),
    ),
    h(
      'dl',
      { className: 'facts' },
      h('div', {}, h('dt', {}, 'Key'), h('dd', {}, h('code', {}, `${key.prefix}…`))),
      h(
        'div',
        {},
        h('dt', {}, 'Used today'),
        h('dd', {}, `${formatNumber(key.creditsUsedToday)} of ${formatNumber(key.dailyCredits)} credits`),
      ),
      h(
        'div',
        {},
        h('dt', {}, 'Per-second cap'),
        h(
          'dd',
          {},
          key.creditsPerSecond === null ? 'none' : `${formatNumber(key.creditsPerSecond)} credits/s`,
        ),
      ),
      h('div', {}, h('dt', {}, 'Created'), h('dd', {}, formatUtc(key.createdAt))),
    ),
    revoked
      ? null
      : h(
          'div',
          { className: 'meter-row' },
          h('label', { for: meterId, className: 'visually-hidden' }, `Credits used today by ${key.name}`),
          usageMeter(key.creditsUsedToday, key.dailyCredits, meterId),
        ),
    h(
      'div',
      { className: 'actions' },
      h(
        'a',
        {
          href: `#/keys/${encodeURIComponent(key.id)}`,
          className: 'button secondary',
          'aria-label': `Manage ${key.name}`,
        },
        'Manage',
      ),
      h(
        'a',
        {
          href: `#/usage?key=${encodeURIComponent(key.id)}`,
          className: 'button secondary',
          'aria-label': `Usage of ${key.name}`,
        },
        'Usage',
      ),
    ),
  );
}

async function keysView(ticket) {
  let keys;
  try {
    keys = (await api('GET', '/keys')).keys;
  } catch (error) {
    return errorView(ticket, error, () => go('#/keys'));
  }
  const projects = groupByProject(keys);
  show(
    ticket,
    'Keys',
    h(
      'div',
      { className: 'view-head' },
      h('h1', {}, 'API keys'),
      h('a', { href: '#/keys/new', className: 'button' }, 'Create key'),
    ),
    flashBox(),
    keys.length === 0
      ? h('p', { className: 'empty' }, 'No keys yet. Create one to get an RPC endpoint for each network.')
      : h(
          'p',
          { className: 'lead' },
          `${keys.length} key${keys.length === 1 ? '' : 's'} in ${projects.length} project${projects.length === 1 ? '' : 's'}. Create a key in a new project to start that project.`,
        ),
    projects.map(([project, projectKeys], index) => {
      const headingId = `project-${index}`;
      const live = projectKeys.filter((k) => k.revokedAt === null).length;
      return h(
        'section',
        { className: 'project', 'aria-labelledby': headingId, 'data-project': project },
        h(
          'div',
          { className: 'project-head' },
          h(
            'div',
            { className: 'project-title' },
            h('h2', { id: headingId }, h('span', { className: 'muted' }, 'Project '), project),
            h('span', { className: 'muted' }, `${live} live, ${projectKeys.length - live} revoked`),
          ),
          h(
            'div',
            { className: 'actions' },
            h(
              'a',
              {
                href: `#/usage?project=${encodeURIComponent(project)}`,
                className: 'button secondary',
                'aria-label': `Project usage of ${project}`,
              },
              'Project usage',
            ),
            h(
              'a',
              {
                href: `#/keys/new?project=${encodeURIComponent(project)}`,
                className: 'button secondary',
                'aria-label': `Add key to project ${project}`,
              },
              'Add key',
            ),
          ),
        ),
        h('ul', { className: 'key-list' }, projectKeys.map(keyCard)),
      );
    }),
  );
}

async function newKeyView(ticket, params) {
  let keys;
  try {
    keys = (await api('GET', '/keys')).keys;
  } catch (error) {
    return errorView(ticket, error, () => go('#/keys/new'));
  }
  const projectNames = [...new Set(keys.map((k) => k.project))].sort();
  const settings = keySettingsFields(null, 'new-');
  const project = field({
    id: 'new-project',
    label: 'Project',
    hint: 'Keys are grouped by project. Pick one or type a new name to start a project (letters, digits, space, _ . -).',
    input: h('input', {
      type: 'text',
      autocomplete: 'off',
      list: 'project-names',
      value: params.get('project') ?? 'default',
    }),
  });
  const fields = {
    name: settings.name,
    project,
    dailyCredits: settings.daily,
    creditsPerSecond: settings.perSecond,
  };
  const summary = h('div', { className: 'notice error', role: 'alert', hidden: true, id: 'form-problems' });
  const submit = h('button', { type: 'submit' }, 'Create key');
  const form = h(
    'form',
    { novalidate: true, className: 'card', 'aria-labelledby': 'new-title' },
    summary,
    settings.name.wrap,
    project.wrap,
    h(
      'datalist',
      { id: 'project-names' },
      projectNames.map((name) => h('option', { value: name })),
    ),
    settings.daily.wrap,
    settings.perSecond.wrap,
    h(
      'div',
      { className: 'actions' },
      submit,
      h('a', { href: '#/keys', className: 'button secondary' }, 'Cancel'),
    ),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    for (const f of Object.values(fields)) f.clear();
    const { problems, values } = readKeySettings(settings);
    const projectName = project.input.value.trim();
    if (projectName === '')
      problems.push({ field: project, text: 'Project is required: type a project name, e.g. default.' });
    else if (projectName.length > 64)
      problems.push({
        field: project,
        text: `Project is ${projectName.length} characters long; at most 64 are allowed.`,
      });
    for (const p of problems) p.field.setError(p.text);
    if (problems.length) return formProblems(summary, problems);
    formProblems(summary, []);
    submit.disabled = true;
    try {
      const created = await api('POST', '/keys', { ...values, project: projectName });
      await createdView(ticket, created, { rotated: false });
    } catch (error) {
      if (error instanceof SignedOut) return;
      formProblems(summary, [serverProblem(error, fields)]);
    } finally {
      submit.disabled = false;
    }
  });
  show(
    ticket,
    'Create key',
    h('h1', { id: 'new-title' }, 'Create a key'),
    h(
      'p',
      { className: 'lead' },
      'The key is shown once, right after it is created, with its endpoint for each network.',
    ),
    form,
  );
}

/** The full key, once, with its endpoints and a curl example per network. */
async function createdView(ticket, created, { rotated }) {
  let kinds = new Map();
  try {
    kinds = new Map((await networks()).map((n) => [n.name, n.kind]));
  } catch {
    // Without the kinds the curl examples fall back to EVM; the key itself must still be shown.
  }
  const endpoints = created.endpoints.map((endpoint, i) => {
    const curl = curlExample(endpoint.url, kinds.get(endpoint.network));
    return h(
      'section',
      { className: 'endpoint card', 'aria-labelledby': `endpoint-${i}`, 'data-network': endpoint.network },
      h(
        'h3',
        { id: `endpoint-${i}` },
        `${endpoint.network} `,
        h('span', { className: 'muted' }, endpoint.chainId),
      ),
      h(
        'div',
        { className: 'copy-row' },
        h('code', { className: 'endpoint-url' }, endpoint.url),
        copyButton(`${endpoint.network} endpoint`, endpoint.url),
      ),
      h('p', { className: 'hint' }, 'Try it:'),
      h(
        'div',
        { className: 'copy-row' },
        h('pre', {}, h('code', { className: 'curl' }, curl)),
        copyButton(`curl example for ${endpoint.network}`, curl),
      ),
    );
  });
  show(
    ticket,
    rotated ? 'Key rotated' : 'Key created',
    h('h1', {}, rotated ? `New key text for ${created.name}` : `Key created: ${created.name}`),
    h(
      'div',
      { className: 'notice warning', role: 'status' },
      h('strong', {}, 'Copy the key now. '),
      'This is the only time it is shown in full: the gateway keeps only a hash of it.',
      rotated ? ' The old key text stopped working.' : '',
    ),
    h(
      'section',
      { className: 'card', 'aria-labelledby': 'key-title' },
      h('h2', { id: 'key-title' }, 'API key'),
      h(
        'div',
        { className: 'copy-row' },
        h('code', { id: 'new-key', className: 'secret' }, created.key),
        copyButton('API key', created.key),
      ),
      h(
        'p',
        { className: 'hint' },
        `Project ${created.project} · ${formatNumber(created.dailyCredits)} credits per day${created.creditsPerSecond === null ? '' : ` · ${formatNumber(created.creditsPerSecond)} credits/s`}`,
      ),
    ),
    h('h2', {}, 'Endpoints'),
    endpoints,
    h(
      'div',
      { className: 'actions' },
      h('a', { href: '#/keys', className: 'button' }, 'Done, back to keys'),
      h(
        'a',
        { href: `#/keys/${encodeURIComponent(created.id)}`, className: 'button secondary' },
        'Manage this key',
      ),
    ),
  );
}

async function keyView(ticket, id) {
  let key;
  try {
    key = await api('GET', `/keys/${encodeURIComponent(id)}`);
  } catch (error) {
    return errorView(ticket, error, () => go(`#/keys/${encodeURIComponent(id)}`));
  }
  const revoked = key.revokedAt !== null;
  const badges = h(
    'span',
    { id: 'key-badges' },
    revoked ? [' ', h('span', { className: 'badge' }, 'revoked')] : securityBadges(key.settings),
  );
  const actionError = h('div', { id: 'action-error' });
  const facts = h(
    'dl',
    { className: 'facts card' },
    h(
      'div',
      {},
      h('dt', {}, 'Status'),
      h('dd', {}, revoked ? `revoked ${formatUtc(key.revokedAt)}` : 'live'),
    ),
    h('div', {}, h('dt', {}, 'Project'), h('dd', {}, key.project)),
    h('div', {}, h('dt', {}, 'Key'), h('dd', {}, h('code', {}, `${key.prefix}…`))),
    h('div', {}, h('dt', {}, 'Id'), h('dd', {}, h('code', {}, key.id))),
    h('div', {}, h('dt', {}, 'Created'), h('dd', {}, formatUtc(key.createdAt))),
    h(
      'div',
      {},
      h('dt', {}, 'Today'),
      h(
        'dd',
        {},
        `${formatNumber(key.creditsUsedToday)} used, ${formatNumber(key.creditsRemainingToday)} left; resets ${formatUtc(key.resetsAt)} (in ${formatUntil(key.resetsAt)})`,
      ),
    ),
  );
  const sections = [];
  if (!revoked) {
    const settings = keySettingsFields(key, 'edit-');
    const fields = {
      name: settings.name,
      dailyCredits: settings.daily,
      creditsPerSecond: settings.perSecond,
    };
    const summary = h('div', { className: 'notice error', role: 'alert', hidden: true, id: 'form-problems' });
    const save = h('button', { type: 'submit' }, 'Save changes');
    const form = h(
      'form',
      { novalidate: true, className: 'card', 'aria-labelledby': 'settings-title' },
      h('h2', { id: 'settings-title' }, 'Name and limits'),
      summary,
      settings.name.wrap,
      settings.daily.wrap,
      settings.perSecond.wrap,
      h('div', { className: 'actions' }, save),
    );
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      for (const f of Object.values(fields)) f.clear();
      const { problems, values } = readKeySettings(settings);
      if (problems.length) return formProblems(summary, problems);
      formProblems(summary, []);
      save.disabled = true;
      try {
        const updated = await api('PATCH', `/keys/${encodeURIComponent(key.id)}`, values);
        flash = {
          kind: 'success',
          text: `Saved: ${updated.name} may spend ${formatNumber(updated.dailyCredits)} credits per day${updated.creditsPerSecond === null ? ' with no per-second cap' : ` and ${formatNumber(updated.creditsPerSecond)} per second`}.`,
        };
        void render();
      } catch (error) {
        if (error instanceof SignedOut) return;
        formProblems(summary, [serverProblem(error, fields)]);
      } finally {
        save.disabled = false;
      }
    });
    sections.push(form);
    sections.push(
      securitySection(key, {
        api,
        confirm: confirmDialog,
        networks,
        explain: (error) =>
          error instanceof SignedOut ? null : `${describeFailure(error)} ${hintFor(error)}`,
        onChange: (updated) => badges.replaceChildren(...securityBadges(updated.settings)),
      }),
    );
    sections.push(
      h(
        'section',
        { className: 'card', 'aria-labelledby': 'rotate-title' },
        h('h2', { id: 'rotate-title' }, 'Rotate'),
        h(
          'p',
          {},
          'Issues a new key text for this key; the current text stops working at once. Limits and usage stay.',
        ),
        h(
          'button',
          {
            type: 'button',
            className: 'secondary',
            onclick: async () => {
              const ok = await confirmDialog({
                title: `Rotate ${key.name}?`,
                text: 'Apps using the current key text will get 401 until they switch to the new one.',
                confirm: 'Rotate key',
              });
              if (!ok) return;
              try {
                const rotated = await api('POST', `/keys/${encodeURIComponent(key.id)}/rotate`);
                await createdView(++renderTicket, rotated, { rotated: true });
              } catch (error) {
                if (!(error instanceof SignedOut)) actionError.replaceChildren(inlineError(error));
              }
            },
          },
          'Rotate key…',
        ),
      ),
      h(
        'section',
        { className: 'card danger-zone', 'aria-labelledby': 'revoke-title' },
        h('h2', { id: 'revoke-title' }, 'Revoke'),
        h(
          'p',
          {},
          'Requests with this key fail with 401 from the moment it is revoked. This cannot be undone.',
        ),
        h(
          'button',
          {
            type: 'button',
            className: 'danger',
            onclick: async () => {
              const ok = await confirmDialog({
                title: `Revoke ${key.name}?`,
                text: 'Requests with this key will fail with 401 at once. This cannot be undone.',
                confirm: 'Revoke key',
              });
              if (!ok) return;
              try {
                await api('DELETE', `/keys/${encodeURIComponent(key.id)}`);
                flash = {
                  kind: 'success',
                  text: `${key.name} is revoked: requests with it now fail with 401.`,
                };
                void render();
              } catch (error) {
                if (!(error instanceof SignedOut)) actionError.replaceChildren(inlineError(error));
              }
            },
          },
          'Revoke key…',
        ),
      ),
    );
  } else {
    sections.push(
      h(
        'p',
        { className: 'notice' },
        'This key is revoked: requests with it fail with 401. Its usage stays for the record.',
      ),
    );
  }
  show(
    ticket,
    key.name,
    h('p', { className: 'crumbs' }, h('a', { href: '#/keys' }, 'Keys'), ` / ${key.project}`),
    h(
      'div',
      { className: 'view-head' },
      h('h1', {}, key.name, badges),
      h('a', { href: `#/usage?key=${encodeURIComponent(key.id)}`, className: 'button secondary' }, 'Usage'),
    ),
    flashBox(),
    actionError,
    facts,
    sections,
  );
}

// ---------------------------------------------------------------- usage

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

function chartFigure({ id, title, labels, values, seriesLabel, rotateLabels, summary }) {
  const plotArea = h('div', { className: 'chart', role: 'img', 'aria-label': `${title}. ${summary}` });
  const figure = h('figure', { className: 'card chart-card', id }, h('figcaption', {}, title), plotArea);
  return {
    figure,
    draw: () => barChart(plotArea, { labels, values, seriesLabel, rotateLabels }),
  };
}

async function usageView(ticket, params) {
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
    return errorView(ticket, error, () => void render());
  }
  const key = keyId ? keys.find((k) => k.id === keyId) : undefined;
  if (keyId && !key) {
    return errorView(
      ticket,
      new ApiError({
        method: 'GET',
        path: '/admin/keys',
        status: 404,
        code: 'not_found',
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
    const m = perMethod.get(row.method) ?? { method: row.method, requests: 0, credits: 0 };
    m.requests += row.requests;
    m.credits += row.credits;
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
      h('button', { type: 'button', className: 'secondary', onclick: () => void render() }, 'Refresh'),
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
          {
            label: 'Avg credits',
            wide: true,
            numeric: true,
            value: (m) => formatDecimal(m.credits / m.requests),
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

// ---------------------------------------------------------------- routing

function parseHash() {
  const raw = location.hash.replace(/^#/, '') || '/keys';
  const [path, query = ''] = raw.split('?');
  return { path, params: new URLSearchParams(query) };
}

function markNav(path) {
  for (const link of nav.querySelectorAll('a[data-nav]')) {
    const current = path.startsWith(`/${link.dataset.nav}`);
    if (current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

async function render() {
  const ticket = ++renderTicket;
  const { path, params } = parseHash();
  if (!getToken()) {
    if (path !== '/signin') {
      location.replace('#/signin');
      return;
    }
    return signInView(ticket);
  }
  if (path === '/signin') return signInView(ticket);
  nav.hidden = false;
  markNav(path);
  if (path === '/keys') return keysView(ticket);
  if (path === '/keys/new') return newKeyView(ticket, params);
  if (path.startsWith('/keys/')) return keyView(ticket, decodeURIComponent(path.slice('/keys/'.length)));
  if (path === '/usage') return usageView(ticket, params);
  show(
    ticket,
    'Not found',
    h('h1', {}, 'No such page'),
    h('p', {}, `The dashboard has no page at #${path}.`),
    h('a', { href: '#/keys', className: 'button' }, 'Go to keys'),
  );
}

document.getElementById('sign-out').addEventListener('click', () => {
  clearToken();
  networksCache = null;
  flash = { kind: 'success', text: 'Signed out. The admin token was removed from this tab.' };
  go('#/signin');
});

document.getElementById('skip-link').addEventListener('click', (event) => {
  event.preventDefault();
  main.focus();
});

window.addEventListener('hashchange', () => void render());
void render();
