// The MFA device shares on the account page (docs/account-page.md): listed with the id
// `revokeDevice(deviceId)` takes, when each was added and whether it is revoked — never a wrapping
// key or a share — and revoked from the page, as `auth.revokeDevice` does from the app.
import type { AuditLog } from './audit.ts';
import { HttpError } from './http.ts';
import type { MfaRecord } from './mfa.ts';
import type { ChainRow } from './store.ts';

/** A device share as the page sees it. Absent dates: the record is older than they are. */
export interface MfaDeviceInfo {
  id: string;
  addedAt?: number;
  revoked: boolean;
  revokedAt?: number;
}

export interface DeviceDeps {
  audit: AuditLog;
  /** The store's compare-and-set revocation: false when there is no such live device. */
  revokeDevice: (userId: string, deviceId: string) => Promise<boolean>;
}

/** The record's devices: live ones first, each group oldest first. */
export function mfaDevicesOf(record: MfaRecord | undefined): MfaDeviceInfo[] {
  const devices = Object.entries(record?.devices ?? {}).map(([id, d]) => ({
    id,
    addedAt: d.addedAt,
    revoked: d.revoked === true,
    revokedAt: d.revokedAt,
  }));
  return devices.sort((a, b) => Number(a.revoked) - Number(b.revoked) || (a.addedAt ?? 0) - (b.addedAt ?? 0));
}

/** Revokes `deviceId` of the page's user (its right to change the account checked by the caller). */
export async function revokeFromPage(deps: DeviceDeps, caller: ChainRow, deviceId: string): Promise<void> {
  if (!(await deps.revokeDevice(caller.userId, deviceId)))
    throw new HttpError(404, 'DEVICE_NOT_FOUND', 'No such device, or already revoked');
  await deps.audit.record('mfa.device.revoked', caller.userId, {
    outcome: 'success',
    clientId: caller.clientId,
    deviceId,
    by: 'user',
  });
}
