/** Requests and credits per method the gateway recorded for a key (admin usage API, summed over days). */
export async function usageByMethod(
  gatewayUrl: string,
  adminToken: string,
  keyId: string,
): Promise<Map<string, { requests: number; credits: number }>> {
  const response = await fetch(`${gatewayUrl}/admin/usage?keyId=${encodeURIComponent(keyId)}`, {
    headers: { authorization: `Bearer ${adminToken}` },
  });
  if (!response.ok) throw new Error(`admin usage API answered HTTP ${response.status}`);
  const body = (await response.json()) as { usage: { method: string; requests: number; credits: number }[] };
  const byMethod = new Map<string, { requests: number; credits: number }>();
  for (const row of body.usage) {
    const seen = byMethod.get(row.method) ?? { requests: 0, credits: 0 };
    byMethod.set(row.method, { requests: seen.requests + row.requests, credits: seen.credits + row.credits });
  }
  return byMethod;
}
