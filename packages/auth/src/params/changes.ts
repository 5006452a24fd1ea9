/** One v6 → v7 conversion: the field, what it became and why. */
export interface MigrationChange {
  field: string;
  to: string;
  message: string;
}
