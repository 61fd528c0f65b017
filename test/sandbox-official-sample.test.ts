import { expect } from 'chai';
import { createHash } from 'node:crypto';
import iconv from 'iconv-lite';
import type { AuthReturn, Sandbox } from '../src/sandbox/index.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { fromKst } from '../src/wire/kst.js';
import { parseReply, postBytes } from './helpers/gateway-form.js';
import { MERCHANT_KEY as KEY, MID } from './helpers/shop.js';
import { startFrozenSandbox } from './helpers/frozen-sandbox.js';

/*
 * NICEPAY's official Node sample (3.2.2) has two bugs a gateway sees: it stamps EdiDate with
 * the server's local time (`getFullYear()`, `getHours()` ...: UTC on most servers, nine hours
 * off KST) and sends the same Moid for every payment. These tests act as that sample does,
 * building every form by hand and posting it over loopback, and expect the sandbox to refuse
 * it as the gateway would. Nothing here goes through this package's client.
 */

/** 2026-11-24 14:00:00 KST on the sandbox's frozen virtual clock. */
const START = fromKst(2026, 11, 24, 14, 0, 0);
/** The sample's one order number, used for every payment. */
const SAMPLE_MOID = 'mnoid1234567890';

/** The sample's EdiDate: YYYYMMDDHHMISS from the local-time getters of the server's zone. */
function sampleEdiDate(d: Date): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

/** What `sampleEdiDate` prints on a server whose TZ is `timeZone`, whatever this process's TZ is. */
function sampleEdiDateIn(d: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(d);
  const get = (t: string): string => parts.find((x) => x.type === t)!.value;
  return `${get('year')}${get('month')}${get('day')}${get('hour')}${get('minute')}${get('second')}`;
}

const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

describe("the official sample's gateway-visible bugs, refused by the sandbox", () => {
  let sandbox: Sandbox;

  beforeEach(async () => {
    sandbox = await startFrozenSandbox(START);
  });
  afterEach(() => sandbox.close());

  /** The sample's payRequest page submitted by the browser: EUC-KR (accept-charset), its EdiDate, its Moid. */
  const openWindow = (ediDate: string, amt = '1004'): Promise<{ status: number; html: string }> =>
    postBytes(
      `${sandbox.url}/window`,
      encodeForm(
        {
          PayMethod: 'CARD',
          GoodsName: '나이스페이',
          Amt: amt,
          MID,
          Moid: SAMPLE_MOID,
          BuyerName: '나이스',
          BuyerEmail: 'happy@day.co.kr',
          BuyerTel: '01000000000',
          ReturnURL: 'http://localhost:3000/authReq',
          EdiDate: ediDate,
          SignData: sha256(ediDate + MID + amt + KEY),
          CharSet: 'euc-kr',
        },
        'euc-kr',
      ),
      'application/x-www-form-urlencoded',
    ).then((r) => ({ status: r.status, html: r.bytes.toString('utf8') }));

  /** The buyer presses 결제하기; the auth return's hidden fields as the sample's route receives them. */
  const payInWindow = async (html: string): Promise<Record<string, string>> => {
    const session = /name="SessionId" value="([^"]+)"/.exec(html)![1]!;
    const r = await postBytes(
      `${sandbox.url}/window/confirm`,
      encodeForm({ SessionId: session, PayMethod: 'CARD', Action: 'approve' }, 'utf-8'),
      'application/x-www-form-urlencoded',
    );
    const out: Record<string, string> = {};
    for (const m of iconv.decode(r.bytes, 'cp949').matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
      out[m[1]!] = m[2]!.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));
    }
    return out;
  };

  /** The sample's authReq route: a form of TID, AuthToken, MID, Amt, EdiDate, SignData posted to NextAppURL, no charset named. */
  const sampleApproval = async (ret: Record<string, string>, ediDate: string): Promise<Record<string, string>> => {
    const form = {
      TID: ret.TxTid!,
      AuthToken: ret.AuthToken!,
      MID: ret.MID!,
      Amt: ret.Amt!,
      EdiDate: ediDate,
      SignData: sha256(ret.AuthToken! + ret.MID! + ret.Amt! + ediDate + KEY),
    };
    return parseReply(
      await postBytes(ret.NextAppURL!, encodeForm(form, 'euc-kr'), 'application/x-www-form-urlencoded'),
    );
  };

  it('writes EdiDate exactly as the local-time getters of this process do', () => {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    expect(sampleEdiDate(START)).to.equal(sampleEdiDateIn(START, zone));
  });

  for (const serverZone of ['UTC', 'America/Los_Angeles']) {
    describe(`on a server whose TZ is ${serverZone}`, () => {
      it("the window refuses the sample's request (EdiDate is not KST)", async () => {
        const edi = sampleEdiDateIn(sandbox.clock.now(), serverZone);
        const r = await openWindow(edi);
        expect(r.status).to.equal(400);
        expect(r.html).to.include('<strong id="error-field">EdiDate</strong>');
      });

      it("approval refuses the sample's EdiDate with W004 and charges nothing", async () => {
        // A window opened right (a browser in Korea), then the sample's server approves.
        const auth: AuthReturn = await sandbox.authenticate({ moid: SAMPLE_MOID, amount: 1004, method: 'CARD' });
        const p = await sampleApproval(auth.fields, sampleEdiDateIn(sandbox.clock.now(), serverZone));
        expect(p.ResultCode).to.equal('W004');
        expect(sandbox.ledger.committed()).to.have.length(0);
        expect(sandbox.ledger.get(auth.fields.TxTid!)?.status).to.equal('declined');
      });
    });
  }

  it('on a server in Seoul the EdiDate passes, and the one Moid fails the second payment with A127', async () => {
    const kst = (): string => sampleEdiDateIn(sandbox.clock.now(), 'Asia/Seoul');
    const first = await openWindow(kst());
    expect(first.status, first.html).to.equal(200);
    const p1 = await sampleApproval(await payInWindow(first.html), kst());
    expect(p1.ResultCode).to.equal('3001');
    sandbox.clock.advance(60_000); // another buyer, a minute later, same Moid
    const second = await openWindow(kst());
    expect(second.status).to.equal(200);
    const ret2 = await payInWindow(second.html);
    const p2 = await sampleApproval(ret2, kst());
    expect(p2.ResultCode).to.equal('A127');
    expect(sandbox.ledger.get(ret2.TxTid!)?.status).to.equal('declined');
    expect(sandbox.ledger.committed().map((e) => e.moid)).to.deep.equal([SAMPLE_MOID]);
  });
});
