// The key settings form the create and edit views share: fields, reading and checking them, and
// the admin API's `<field> must …` answers shown on the field.
import { describeFailure, hintFor } from './admin.js';
import { ApiError } from './api.js';
import { field, h } from './dom.js';
import { parseWholeNumber } from './format.js';

/** Server field names → form fields, for the admin API's `<field> must …` messages. */
export function serverProblem(error, fields) {
  if (error instanceof ApiError && error.status === 400) {
    const name = error.message.split(/\s/)[0];
    const target = fields[name];
    const text = `The gateway says: ${error.message}.`;
    if (target) target.setError(text);
    return { field: target, text };
  }
  return { text: `${describeFailure(error)} ${hintFor(error)}` };
}

export function numberInput(value) {
  return h('input', {
    type: 'text',
    inputmode: 'numeric',
    autocomplete: 'off',
    value: value === null || value === undefined ? '' : String(value),
  });
}

/** Name, daily cap and per-second cap, as the create and edit forms share them. */
export function keySettingsFields(key, idPrefix) {
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

export function readKeySettings({ name, daily, perSecond }) {
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
