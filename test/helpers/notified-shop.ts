import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createShop, type Shop, type ShopOptions } from '../../example-app/app.js';
import type { Logger } from '../../src/index.js';
import { createSandbox, type Sandbox, TEST_MERCHANTS } from '../../src/sandbox/index.js';

const { mid: MID, merchantKey: KEY } = TEST_MERCHANTS[0]!;
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** An example shop on loopback and the embedded sandbox whose merchant notifies it. */
export interface NotifiedShop {
  sandbox: Sandbox;
  shop: Shop;
  /** The shop's server: requests through it come from 127.0.0.1, as the sandbox's notices do. */
  server: Server;
  close(): Promise<void>;
}

/**
 * Starts the example shop's server first, then a sandbox whose merchant (the first test
 * merchant) posts its payment notices to the shop's /pay/notify, then the shop on the sandbox's
 * clock, in memory. `options` go to createShop (its `nicepay` options on top of the clock).
 */
export async function startNotifiedShop(options: Partial<ShopOptions> = {}): Promise<NotifiedShop> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const shopUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const sandbox = createSandbox({
    merchants: [{ mid: MID, merchantKey: KEY, notificationUrl: `${shopUrl}/pay/notify` }],
  });
  await sandbox.listen(0);
  const shop = createShop({
    mid: MID,
    merchantKey: KEY,
    baseUrl: sandbox.url,
    dbFile: ':memory:',
    logger: quiet,
    sandbox,
    ...options,
    nicepay: { clock: () => sandbox.clock.now(), ...options.nicepay },
  });
  server.on('request', shop.app);
  return {
    sandbox,
    shop,
    server,
    async close() {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      await shop.close();
      await sandbox.close();
    },
  };
}
