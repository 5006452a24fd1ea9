// Sign-in: the admin token, checked against the gateway before it is kept for the tab.
import { describeFailure, hintFor, setNetworks } from '../admin.js';
import { ApiError, adminRequest, setToken } from '../api.js';
import { announce, field, formProblems, h } from '../dom.js';
import { flashBox, go } from '../navigation.js';
import { nav, show } from '../view.js';

export function signInView(ticket) {
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
      setNetworks((await adminRequest('GET', '/networks', { token: typed })).networks);
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
