/**
 * Upstream error text can carry the upstream's own credentials (an API key in its URL, a token
 * echoed back). Before any upstream message reaches a client, every URL and every secret part of
 * the configured upstream address is removed.
 */
export function upstreamSecrets(upstreamUrl: string): string[] {
  const url = new URL(upstreamUrl);
  const secrets = [url.username, url.password, ...url.pathname.split('/'), ...url.searchParams.values()];
  return secrets.filter((part) => part.length >= 6);
}

export function sanitiseUpstreamMessage(message: string, secrets: readonly string[]): string {
  let clean = message.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, '[upstream address]');
  for (const secret of secrets) clean = clean.split(secret).join('[redacted]');
  return clean.slice(0, 500);
}
