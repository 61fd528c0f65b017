export { createPayoutClient } from './payout-client.js';
export type * from './types.js';
export { type ScheduleRule, type BusinessDays, weekdaysOnly, CUTOFF, EXECUTION, RESULTS_FROM, BLACKOUT } from './schedule.js';
