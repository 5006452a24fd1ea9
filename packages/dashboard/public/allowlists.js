// A key's security settings in words, and the typed allowlists as the admin API takes them. No DOM
// here. The rules themselves are the gateway's (packages/gateway/src/keys/key-settings.ts); the
// page checks only the number of entries and leaves the format of each entry to the gateway.

/** Entries per list the gateway accepts (MAX_ENTRIES in key-settings.ts; the dashboard test pins it). */
export const MAX_ENTRIES = 30;

/** The four allowlists: the admin API's field name, and how the page names and explains each. */
/** @type {{ field: string, id: string, label: string, noun: [string, string], hint: string }[]} */
export const LISTS = [
  {
    field: 'allowedOrigins',
    id: 'origins',
    label: 'Allowed origins',
    noun: ['origin', 'origins'],
    hint: 'The Origin header browsers send, e.g. https://app.example.com or http://localhost:3000. *.example.com allows example.com and all its subdomains; without http:// or https:// both match. Requests without an Origin header (servers, curl) are then refused.',
  },
  {
    field: 'allowedUserAgents',
    id: 'user-agents',
    label: 'Allowed user agents',
    noun: ['user agent', 'user agents'],
    hint: 'A request passes when its User-Agent header contains one of these texts (case-sensitive), e.g. my-backend/. At most 200 characters each.',
  },
  {
    field: 'allowedContracts',
    id: 'contracts',
    label: 'Allowed contract addresses',
    noun: ['contract', 'contracts'],
    hint: '0x and 40 hex digits. Checked where a call names a contract: the to of eth_call, eth_estimateGas and eth_createAccessList, the address of eth_getLogs, eth_getCode and eth_getStorageAt (a call of these that names none is refused). Other methods are not limited.',
  },
  {
    field: 'allowedMethods',
    id: 'methods',
    label: 'Allowed methods',
    noun: ['method', 'methods'],
    hint: 'Method names exactly as sent (case-sensitive), e.g. eth_call. Every other method is refused.',
  },
];

/** The entries typed in a list, one per line: blank lines are skipped, spaces around an entry trimmed. */
export function parseLines(text) {
  const entries = [];
  const lines = [];
  text.split(/\r?\n/).forEach((line, index) => {
    const entry = line.trim();
    if (entry === '') return;
    entries.push(entry);
    lines.push(index + 1);
  });
  return { entries, lines };
}

/** The problem with a list's length, or undefined. */
export function countProblem(list, count) {
  if (count <= MAX_ENTRIES) return undefined;
  return `${list.label} has ${count} entries; at most ${MAX_ENTRIES} are allowed. Remove ${count - MAX_ENTRIES}.`;
}

/**
 * The list and the entry an admin API message such as `settings.allowedOrigins[2] must be an
 * origin such as …` is about, or undefined when it names no list.
 */
export function problemOf(message) {
  const match = /^settings\.(\w+)(?:\[(\d+)\])?\s+(.*)$/s.exec(message);
  if (!match) return undefined;
  const list = LISTS.find((l) => l.field === match[1]);
  if (!list) return undefined;
  return { list, index: match[2] === undefined ? undefined : Number(match[2]), rule: match[3] };
}

/** `one of 2 allowed origins`, `the allowed origin` */
function oneOf(count, [singular, plural]) {
  return count === 1 ? `the allowed ${singular}` : `one of ${count} allowed ${plural}`;
}

function joinAnd(parts) {
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/** True when any allowlist has entries. */
export const isRestricted = (settings) => LISTS.some((l) => settings[l.field].length > 0);

/** What the settings let through, in a sentence, e.g. `Requests must come from one of 2 allowed origins and …`. */
export function describeSettings(settings) {
  const count = (field) => settings[field].length;
  const parts = [];
  if (count('allowedOrigins')) parts.push(`come from ${oneOf(count('allowedOrigins'), LISTS[0].noun)}`);
  if (count('allowedUserAgents'))
    parts.push(`send a User-Agent containing ${oneOf(count('allowedUserAgents'), LISTS[1].noun)}`);
  if (count('allowedContracts'))
    parts.push(
      count('allowedContracts') === 1
        ? 'name only the allowed contract when they name one'
        : `name only the ${count('allowedContracts')} allowed contracts when they name one`,
    );
  if (count('allowedMethods')) parts.push(`call ${oneOf(count('allowedMethods'), LISTS[3].noun)}`);
  if (settings.secretRequired) parts.push('carry the key secret (HTTP Basic)');
  if (parts.length === 0)
    return 'Anyone with the key may use it for anything: every list is empty and no secret is required.';
  return `Requests must ${joinAnd(parts)}; any other request gets HTTP 403 and costs nothing.`;
}
