export { createPayoutClient } from './payout-client.js';
export type * from './types.js';
export { type ScheduleRule, type BusinessDays, weekdaysOnly } from './schedule.js';
