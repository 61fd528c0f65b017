/**
 * resolveConfig and the per-route option resolvers: every option is checked once, at
 * creation, by a NicepayConfigError naming it, and defaults are filled in one place.
 */
import { expect } from 'chai';
import { createNicepay, memoryStore, NicepayConfigError } from '../src/index.js';
import { resolveConfig } from '../src/config.js';
import { weekdaysOnly } from '../src/business-days.js';
import { MERCHANT_KEY, MID } from './helpers/shop.js';

const good = { mid: MID, merchantKey: MERCHANT_KEY, baseUrl: 'http://127.0.0.1:1' };

function configError(make: () => unknown): NicepayConfigError {
  try {
    make();
  } catch (e) {
    expect(e).to.be.instanceOf(NicepayConfigError);
    return e as NicepayConfigError;
  }
  throw new Error('expected a NicepayConfigError');
}

describe('resolveConfig', () => {
  it('names the bad option and never echoes the key', () => {
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ ...good, mid: 'short' }, 'mid'],
      [{ ...good, merchantKey: 'x' }, 'merchantKey'],
      [{ ...good, baseUrl: 'ftp://x' }, 'baseUrl'],
      [{ ...good, trustedHosts: [] }, 'trustedHosts'],
      [{ ...good, timeouts: { connectMs: -1 } }, 'timeouts.connectMs'],
      [{ ...good, logger: { info() {} } }, 'logger'],
      [{ ...good, charset: 'latin1' }, 'charset'],
      [{ ...good, payout: 'yes' }, 'payout'],
      [{ ...good, payout: { scheduleChecks: 'no' } }, 'payout.scheduleChecks'],
      [{ ...good, payout: { businessDays: [] } }, 'payout.businessDays'],
      [{ ...good, store: {} }, 'store'],
    ];
    for (const [opts, name] of bad) {
      const err = configError(() => createNicepay(opts as never));
      expect(err.message, name).to.include(name);
      expect(err.field, name).to.equal(name);
      expect(JSON.stringify(err) + err.message).to.not.include(MERCHANT_KEY);
    }
  });

  it('refuses a merchant key with leading or trailing white space (a newline from a secrets file), without quoting it', () => {
    for (const key of [`${MERCHANT_KEY}\n`, ` ${MERCHANT_KEY}`, `${MERCHANT_KEY}\t`]) {
      const err = configError(() => createNicepay({ ...good, merchantKey: key }));
      expect(err.field).to.equal('merchantKey');
      expect(err.message).to.include('white space');
      expect(JSON.stringify(err) + err.message + String(err.stack)).to.not.include(MERCHANT_KEY);
    }
  });

  it('sets field to the option it names, on every refusal', () => {
    const err = configError(() => createNicepay({ ...good, mid: 'short' }));
    expect(err.field).to.equal('mid');
    expect(err.toJSON()).to.include({ field: 'mid', code: 'NICEPAY_CONFIG_INVALID' });
  });

  it('refuses createNicepay() with no argument with a message that shows the call', () => {
    const err = configError(() => (createNicepay as unknown as () => unknown)());
    expect(err.field).to.equal('options');
    expect(err.message).to.include('createNicepay({ mid, merchantKey, baseUrl })');
  });

  it('refuses a baseUrl or dataUrl whose path would make every call 404: any on the gateway, an interface path anywhere', () => {
    for (const [opts, name] of [
      [{ ...good, baseUrl: 'https://webapi.nicepay.co.kr/webapi/pay_process.jsp' }, 'baseUrl'],
      [{ ...good, baseUrl: 'https://webapi.nicepay.co.kr/v1' }, 'baseUrl'],
      [{ ...good, baseUrl: 'http://127.0.0.1:1/webapi' }, 'baseUrl'],
      [{ ...good, baseUrl: 'http://127.0.0.1:1/proxy/webapi/' }, 'baseUrl'],
      [{ ...good, dataUrl: 'https://data.nicepay.co.kr/om/api' }, 'dataUrl'],
      [{ ...good, dataUrl: 'http://127.0.0.1:1/recon/api' }, 'dataUrl'],
    ] as const) {
      const err = configError(() => createNicepay(opts));
      expect(err.field, opts.baseUrl).to.equal(name);
      expect(err.message).to.include('without a path');
    }
    expect(configError(() => createNicepay({ ...good, baseUrl: 'http://127.0.0.1:1/?x=1' })).message).to.include(
      'without a query',
    );
    // a bare origin, with or without its trailing slash, and a proxy's own prefix are kept
    expect(resolveConfig({ ...good, baseUrl: 'https://webapi.nicepay.co.kr/' }).baseUrl.href).to.equal(
      'https://webapi.nicepay.co.kr/',
    );
    expect(resolveConfig({ ...good, baseUrl: 'http://127.0.0.1:1/nicepay-proxy/' }).baseUrl.pathname).to.equal(
      '/nicepay-proxy/',
    );
  });

  it("refuses a path on another host that names a page (no closing '/'), or the sandbox's window, before any call can 404", () => {
    for (const baseUrl of [
      'http://127.0.0.1:1/window',
      'http://127.0.0.1:1/window/',
      'http://127.0.0.1:1/nicepay',
      'https://proxy.example/a/b',
    ]) {
      const err = configError(() => createNicepay({ ...good, baseUrl }));
      expect(err.field, baseUrl).to.equal('baseUrl');
      expect(err.message, baseUrl).to.match(/without a path|path prefix ending in '\/'/);
    }
    expect(configError(() => createNicepay({ ...good, dataUrl: 'http://127.0.0.1:1/data' })).field).to.equal('dataUrl');
    expect(configError(() => createNicepay({ ...good, baseUrl: 'http://127.0.0.1:1/nicepay' })).message).to.include(
      "'http://127.0.0.1:1/nicepay/'",
    );
    // a proxy's prefix said as a folder is kept
    expect(resolveConfig({ ...good, baseUrl: 'https://proxy.example/a/b/' }).baseUrl.pathname).to.equal('/a/b/');
  });

  it("refuses plain http: for the gateway's own hosts, and keeps it for a local sandbox", () => {
    for (const url of ['http://webapi.nicepay.co.kr', 'http://DC1-API.NICEPAY.CO.KR', 'http://data.nicepay.co.kr.']) {
      const err = configError(() => createNicepay({ ...good, baseUrl: url }));
      expect(err.field).to.equal('baseUrl');
      expect(err.message).to.include('https:');
    }
    expect(configError(() => createNicepay({ ...good, dataUrl: 'http://data.nicepay.co.kr' })).field).to.equal(
      'dataUrl',
    );
    expect(resolveConfig({ ...good, baseUrl: 'http://localhost:8081' }).baseUrl.protocol).to.equal('http:');
    expect(resolveConfig({ ...good, baseUrl: 'http://nicepay.co.kr.example.com' }).baseUrl.protocol).to.equal('http:');
  });

  it('refuses an unknown or misspelt option, as JavaScript callers get no type check, and suggests the name', () => {
    const typo = configError(() => createNicepay({ ...good, timeout: 5 } as never));
    expect(typo.field).to.equal('timeout');
    expect(typo.message).to.include("Did you mean 'timeouts'?");
    const key = configError(() => createNicepay({ ...good, merchantkey: 'x' } as never));
    expect(key.message).to.include("Did you mean 'merchantKey'?");
    const nested = configError(() => createNicepay({ ...good, timeouts: { connectMS: 100 } } as never));
    expect(nested.field).to.equal('timeouts.connectMS');
    expect(nested.message).to.include("Did you mean 'timeouts.connectMs'?");
    const payout = configError(() => createNicepay({ ...good, payout: { businessDay: () => true } } as never));
    expect(payout.field).to.equal('payout.businessDay');
    const unrelated = configError(() => createNicepay({ ...good, flavour: 'vanilla' } as never));
    expect(unrelated.message).to.not.include('Did you mean');
  });

  it('fills every default once: window charset, payout schedule, timeouts, an owned memory store', () => {
    const c = resolveConfig(good);
    expect(c).to.include({
      windowCharset: 'euc-kr',
      connectMs: 5_000,
      responseMs: 30_000,
      maxResponseBytes: 65_536,
      ownsStore: true,
    });
    expect(c.payout).to.deep.equal({ scheduleChecks: true, businessDays: weekdaysOnly });
    expect(c.dataUrl.href).to.equal(c.baseUrl.href);
    expect([...c.trustedHosts]).to.deep.equal(['127.0.0.1:1']);
  });

  it("on NICEPAY's own host, trusts the documented production approval hosts and sends payouts to the data host by default", () => {
    const c = resolveConfig({ ...good, baseUrl: 'https://webapi.nicepay.co.kr' });
    expect([...c.trustedHosts]).to.deep.equal([
      'dc1-api.nicepay.co.kr',
      'dc2-api.nicepay.co.kr',
      'webapi.nicepay.co.kr',
    ]);
    expect(c.dataUrl.href).to.equal('https://data.nicepay.co.kr/');
    // Given, they are what was given; another host (the sandbox) keeps its own defaults.
    const given = resolveConfig({
      ...good,
      baseUrl: 'https://webapi.nicepay.co.kr',
      dataUrl: 'https://data2.example',
      trustedHosts: ['dc1-api.nicepay.co.kr'],
    });
    expect([given.dataUrl.href, [...given.trustedHosts]]).to.deep.equal([
      'https://data2.example/',
      ['dc1-api.nicepay.co.kr'],
    ]);
    expect(resolveConfig({ ...good, baseUrl: 'https://evil-nicepay.co.kr.example' }).dataUrl.host).to.equal(
      'evil-nicepay.co.kr.example',
    );
  });

  it('takes the window charset by any of its names, and payout options as given', () => {
    const holidays = (d: string): boolean => d !== '20261225';
    const store = memoryStore();
    const c = resolveConfig({
      ...good,
      charset: 'UTF8' as never,
      payout: { scheduleChecks: false, businessDays: holidays },
      store,
    });
    expect(c.windowCharset).to.equal('utf-8');
    expect(c.payout).to.deep.equal({ scheduleChecks: false, businessDays: holidays });
    expect(c.ownsStore).to.equal(false);
    expect(c.store).to.equal(store);
    expect(resolveConfig({ ...good, charset: 'cp949' as never }).windowCharset).to.equal('euc-kr');
  });

  it('normalises trustedHosts as URL.host does (case, default port) and refuses non-hosts', () => {
    const base = { mid: MID, merchantKey: MERCHANT_KEY, baseUrl: 'https://webapi.nicepay.co.kr' };
    const config = resolveConfig({
      ...base,
      trustedHosts: ['DC1-API.nicepay.co.kr:443', 'dc2-api.nicepay.co.kr:8443'],
    });
    expect([...config.trustedHosts]).to.deep.equal(['dc1-api.nicepay.co.kr', 'dc2-api.nicepay.co.kr:8443']);
    expect(() => resolveConfig({ ...base, trustedHosts: ['https://x.example/path'] })).to.throw(/trustedHosts/);
  });
});

describe('settle options', () => {
  it('intervalMs: false runs no settler but keeps attentionAfterMs and reconciliation for settle(); settle: false keeps the defaults', () => {
    const off = resolveConfig({
      ...good,
      settle: { intervalMs: false, attentionAfterMs: 60_000, reconciliation: { usrId: 'admin01' } },
    }).settle;
    expect(off).to.deep.equal({
      intervalMs: false,
      attentionAfterMs: 60_000,
      batch: 100,
      reconciliation: { usrId: 'admin01', idCl: '2', searchID: MID },
    });
    expect(resolveConfig({ ...good, settle: false }).settle).to.include({
      intervalMs: false,
      attentionAfterMs: 86_400_000,
    });
    expect(() => resolveConfig({ ...good, settle: { intervalMs: 0 } })).to.throw(
      NicepayConfigError,
      /settle\.intervalMs/,
    );
  });
});

describe('the default memoryStore in production', () => {
  it('warns once per process under NODE_ENV=production (code NICEPAY_MEMORY_STORE), and never when a store is passed or outside production', async () => {
    const seen: Array<{ code?: string; message: string }> = [];
    const record = (w: Error & { code?: string }): void => {
      seen.push({ code: w.code, message: w.message });
    };
    const was = process.env.NODE_ENV;
    const listeners = process.listeners('warning');
    process.removeAllListeners('warning');
    process.on('warning', record);
    try {
      resolveConfig(good);
      process.env.NODE_ENV = 'production';
      resolveConfig({ ...good, store: memoryStore() });
      resolveConfig(good);
      resolveConfig(good);
      // process.emitWarning delivers on the next tick.
      await new Promise<void>((done) => setImmediate(done));
    } finally {
      if (was === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = was;
      process.removeListener('warning', record);
      for (const l of listeners) process.on('warning', l);
    }
    const ours = seen.filter((w) => w.code === 'NICEPAY_MEMORY_STORE');
    expect(ours).to.have.length(1);
    expect(ours[0]!.message).to.match(/sqliteStore\(\).*redisStore\(\)/);
  });
});

describe('route options are resolved when the route is created', () => {
  it('checkoutReturn: requires expectedAmount, names a bad option, and refuses the old defaultCharset', async () => {
    const nicepay = createNicepay(good);
    try {
      expect(() => nicepay.checkoutReturn({} as never)).to.throw(/expectedAmount/);
      expect(() => nicepay.checkoutReturn({ expectedAmount: () => 1, ediType: 'XML' as never })).to.throw(/ediType/);
      for (const [opt, value] of [
        ['limit', 0],
        ['hookTimeoutMs', -1],
        ['resultTtlMs', 1.5],
        ['responseCharset', 'latin1'],
        ['onApproved', 'yes'],
      ] as const) {
        expect(
          configError(() => nicepay.checkoutReturn({ expectedAmount: () => 1, [opt]: value } as never)).message,
        ).to.include(opt);
      }
      const old = configError(() =>
        nicepay.checkoutReturn({ expectedAmount: () => 1, defaultCharset: 'utf-8' } as never),
      );
      expect(old.message).to.include('defaultCharset').and.include('charset');
    } finally {
      await nicepay.close();
    }
  });

  it('keyinRouter: requires expectedAmount and names a bad option', async () => {
    const nicepay = createNicepay(good);
    try {
      expect(() => nicepay.keyinRouter({} as never)).to.throw(/expectedAmount/);
      for (const [opt, value] of [
        ['requireHttps', 'no'],
        ['limit', -5],
        ['goodsName', 42],
        ['onApproved', {}],
      ] as const) {
        expect(
          configError(() => nicepay.keyinRouter({ expectedAmount: () => 1, [opt]: value } as never)).message,
        ).to.include(opt);
      }
    } finally {
      await nicepay.close();
    }
  });
});
