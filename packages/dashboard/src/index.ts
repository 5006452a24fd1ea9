export {
  createDashboardHandler,
  type DashboardHandler,
  type DashboardOptions,
  DEFAULT_DASHBOARD_PATH,
} from './handler.ts';
