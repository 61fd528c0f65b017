/** The Redis store's suite on a three-master Redis Cluster and on a master behind a Sentinel (test/helpers/redis-setups-suite.ts). */
import { describeRedisSetups } from './helpers/redis-setups-suite.js';

describeRedisSetups(['cluster', 'sentinel']);
