// Creating a key, and the page that shows a new (or rotated) key's text once.
import { api, networks, SignedOut } from '../admin.js';
import { copyButton, field, formProblems, h } from '../dom.js';
import { curlExample, formatNumber } from '../format.js';
import { keySettingsFields, readKeySettings, serverProblem } from '../key-form.js';
import { go } from '../navigation.js';
import { errorView, show } from '../view.js';

export async function newKeyView(ticket, params) {
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
export async function createdView(ticket, created, { rotated }) {
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
