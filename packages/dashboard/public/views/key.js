// One key: its settings, limits, security rules, rotation and revocation.
import { api, describeFailure, hintFor, networks, SignedOut } from '../admin.js';
import { confirmDialog, formProblems, h } from '../dom.js';
import { formatNumber, formatUntil, formatUtc } from '../format.js';
import { keySettingsFields, readKeySettings, serverProblem } from '../key-form.js';
import { flashBox, go, rerender, setFlash } from '../navigation.js';
import { securityBadges, securitySection } from '../security.js';
import { errorView, inlineError, nextTicket, show } from '../view.js';
import { createdView } from './new-key.js';

export async function keyView(ticket, id) {
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
        setFlash({
          kind: 'success',
          text: `Saved: ${updated.name} may spend ${formatNumber(updated.dailyCredits)} credits per day${updated.creditsPerSecond === null ? ' with no per-second cap' : ` and ${formatNumber(updated.creditsPerSecond)} per second`}.`,
        });
        rerender();
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
                await createdView(nextTicket(), rotated, { rotated: true });
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
                setFlash({
                  kind: 'success',
                  text: `${key.name} is revoked: requests with it now fail with 401.`,
                });
                rerender();
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
