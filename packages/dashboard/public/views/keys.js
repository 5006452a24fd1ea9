// The keys, grouped by project, with today's usage against each cap.
import { api } from '../admin.js';
import { h } from '../dom.js';
import { formatNumber, formatUtc } from '../format.js';
import { flashBox, go } from '../navigation.js';
import { securityBadges } from '../security.js';
import { errorView, show } from '../view.js';

export function groupByProject(keys) {
  const projects = new Map();
  for (const key of keys) {
    if (!projects.has(key.project)) projects.set(key.project, []);
    projects.get(key.project).push(key);
  }
  return [...projects].sort(([a], [b]) => a.localeCompare(b));
}

export function usageMeter(used, cap, id) {
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

export async function keysView(ticket) {
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
