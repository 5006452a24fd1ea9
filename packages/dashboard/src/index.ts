export type { AuthAdminSource, AuthAdminTarget } from './audit-proxy.ts';
export {
  createDashboardHandler,
  type DashboardHandler,
  type DashboardOptions,
  DEFAULT_DASHBOARD_PATH,
} from './handler.ts';
