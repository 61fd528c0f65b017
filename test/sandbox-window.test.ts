import { expect } from 'chai';
import iconv from 'iconv-lite';
import { request } from 'undici';
import type { AuthReturn, Sandbox } from '../src/sandbox/index.js';
import { encodeForm } from '../src/wire/form-codec.js';
import { fromKst, kstTimestamp14 } from '../src/wire/kst.js';
import { approvalResponseSignature, windowSignData } from '../src/wire/signatures.js';
import { parseReply, postBytes, sendHandForm, type RawReply } from './helpers/gateway-form.js';
import { MERCHANT_KEY as KEY, MID } from './helpers/shop.js';
import { startFrozenSandbox } from './helpers/frozen-sandbox.js';

/** 2026-11-24 14:00:00 KST, frozen. */
const START = fromKst(2026, 11, 24, 14, 0, 0);

/*
 * The sandbox's payment window: its request is EUC-KR whatever CharSet says (CharSet is the
 * answers' charset, lifecycle-facts 1), it posts the auth return as a browser does, and a
 * person can pick a decline as well as an approval.
 */
describe("sandbox payment window: charset and the buyer's choices", () => {
  let sandbox: Sandbox;
  let seq = 0;
  const auth = (extra: Partial<Parameters<Sandbox['authenticate']>[0]> = {}): Promise<AuthReturn> =>
    sandbox.authenticate({ moid: `window-${++seq}`, amount: 1004, method: 'CARD', ...extra });
  const answer = async (a: AuthReturn): Promise<Record<string, string>> =>
    parseReply(await sendHandForm(sandbox, a, KEY));
  const statusOf = (a: AuthReturn): string | undefined => sandbox.ledger.get(a.fields.TxTid!)?.status;

  beforeEach(async () => {
    sandbox = await startFrozenSandbox(START);
  });
  afterEach(() => sandbox.close());

  const windowForm = (over: Record<string, string> = {}): Record<string, string> => {
    const edi = kstTimestamp14(sandbox.clock.now());
    return {
      MID,
      Amt: '1004',
      Moid: `win-${++seq}`,
      GoodsName: '똠양꿍',
      BuyerName: '김햏',
      ReturnURL: 'https://shop.example/pay/return',
      EdiDate: edi,
      SignData: windowSignData(edi, MID, '1004', KEY),
      ...over,
    };
  };
  const sessionOf = (html: string): string => /name="SessionId" value="([^"]+)"/.exec(html)![1]!;
  const hidden = (html: string): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
      out[m[1]!] = m[2]!.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));
    return out;
  };
  const open = async (over: Record<string, string> = {}): Promise<string> => {
    const r = await postBytes(
      `${sandbox.url}/window`,
      encodeForm(windowForm(over), 'euc-kr'),
      'application/x-www-form-urlencoded',
    );
    expect(r.status, r.bytes.toString('utf8')).to.equal(200);
    return r.bytes.toString('utf8');
  };
  const confirm = (session: string, action: string): Promise<RawReply> =>
    postBytes(
      `${sandbox.url}/window/confirm`,
      encodeForm({ SessionId: session, PayMethod: 'CARD', Action: action }, 'utf-8'),
      'application/x-www-form-urlencoded',
    );

  it("reads the window request as EUC-KR even with CharSet=utf-8, which chooses the answers' charset", async () => {
    const html = await open({ CharSet: 'utf-8' });
    expect(html).to.include('똠양꿍').and.include('김햏');
    const r = await confirm(sessionOf(html), 'approve');
    expect(r.contentType).to.equal('text/html; charset=utf-8');
    const page = r.bytes.toString('utf8');
    // A plain form: no enctype, so the browser posts application/x-www-form-urlencoded with no charset.
    expect(page).to.match(/<form id="return-form" method="post" action="[^"]+" accept-charset="utf-8">/);
    expect(hidden(page).AuthResultMsg).to.equal('인증 성공');
  });

  it('a window request that declares charset=utf-8 is refused: window requests are EUC-KR', async () => {
    const r = await postBytes(
      `${sandbox.url}/window`,
      encodeForm(windowForm({ CharSet: 'utf-8' }), 'utf-8'),
      'application/x-www-form-urlencoded; charset=utf-8',
    );
    expect(r.status).to.equal(400);
    expect(r.bytes.toString('utf8')).to.include('<strong id="error-field">Content-Type</strong>');
  });

  it('GET /window reads EUC-KR escapes in the query', async () => {
    const q = encodeForm(windowForm({ GoodsName: '햏 세트' }), 'euc-kr').toString('latin1');
    const res = await request(`${sandbox.url}/window?${q}`);
    expect(res.statusCode).to.equal(200);
    expect(await res.body.text()).to.include('햏 세트');
  });

  it('lets a person pick a decline: the auth return is 0000, the approval is refused 3011, signed and padded', async () => {
    const html = await open();
    expect(html).to.match(/<button type="submit" name="Action" value="decline" id="decline">/);
    const r = await confirm(sessionOf(html), 'decline');
    const f = hidden(iconv.decode(r.bytes, 'cp949'));
    expect(f.AuthResultCode).to.equal('0000');
    const a: AuthReturn = { fields: f, body: Buffer.alloc(0), contentType: '' };
    const p = await answer(a);
    expect(p).to.include({ ResultCode: '3011', Amt: '000000001004' });
    expect(p.Signature).to.equal(approvalResponseSignature(f.TxTid!, MID, '000000001004', KEY));
    expect(statusOf(a)).to.equal('declined');
    expect(sandbox.ledger.committed()).to.have.length(0);
  });

  it('sandbox.authenticate({ decline: true }) does the same without a browser, posted with no charset parameter', async () => {
    const a = await auth({ decline: true, charset: 'utf-8' });
    expect(a.contentType).to.equal('application/x-www-form-urlencoded');
    expect((await answer(a)).ResultCode).to.equal('3011');
    let err: unknown;
    try {
      await auth({ decline: true, cancel: true });
    } catch (e) {
      err = e;
    }
    expect(String(err)).to.match(/cancel and decline/);
  });
});
