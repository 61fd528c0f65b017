/**
 * One code, one meaning: every code the package throws has one class and one
 * status, from the table in src/errors/codes.ts; `instanceof` of each class holds for that
 * class (and its subclasses) only, across two copies of the package too.
 */
import { expect } from 'chai';
import {
  NicepayConfigError,
  NicepayDataApiError,
  NicepayError,
  NicepayGatewayError,
  NicepayHookError,
  NicepayRequestError,
  NicepayScheduleError,
  NicepayServiceError,
  isNicepayError,
  type NicepayErrorCode,
} from '../src/index.js';
import { ERROR_CODES, statusOf } from '../src/errors/index.js';
import { dataHostRefusal } from '../src/data-api/call.js';
import { withStackText } from '../src/errors/stack-text.js';
import { StoreFullError } from '../src/store/types.js';
import { TransportError } from '../src/transport.js';

/** Builds an error of `code` the way the package does. */
function make(code: NicepayErrorCode): NicepayError {
  const row = ERROR_CODES[code];
  switch (row.class) {
    case 'NicepayConfigError':
      return new NicepayConfigError('x', 'y');
    case 'NicepayScheduleError':
      return new NicepayScheduleError('past-date', 'm');
    case 'NicepayDataApiError':
      return new NicepayDataApiError('3001', 'msg', 'reason', '0101001');
    case 'NicepayGatewayError':
      return new NicepayGatewayError(code as never, 'm');
    case 'NicepayRequestError':
      return new NicepayRequestError(code as never, 'm');
    case 'NicepayServiceError':
      return new NicepayServiceError(code as never, 'm');
    case 'NicepayHookError':
      return new NicepayHookError(code as never, 'm');
  }
}

const CLASSES = {
  NicepayConfigError,
  NicepayRequestError,
  NicepayServiceError,
  NicepayScheduleError,
  NicepayGatewayError,
  NicepayHookError,
  NicepayDataApiError,
} as const;

/** A second copy of the package, as a shop with two installs would have: fresh classes, same brands. */
async function secondCopy(): Promise<typeof import('../src/errors/index.js')> {
  return (await import(`../src/errors/index.js?copy=${Math.random()}`)) as typeof import('../src/errors/index.js');
}

describe('error codes', () => {
  it('every code has one class and one status, and errors of that class carry them', () => {
    const codes = Object.keys(ERROR_CODES) as NicepayErrorCode[];
    expect(codes.length).to.be.greaterThan(20);
    for (const code of codes) {
      const err = make(code);
      const row = ERROR_CODES[code];
      expect(err.code, code).to.equal(code);
      expect(err.name, code).to.equal(row.class);
      expect(err).to.be.instanceOf(CLASSES[row.class]);
      expect(err.status, code).to.equal(row.status).and.equal(statusOf(code));
      expect(err.statusCode, code).to.equal(row.status);
      expect(err.expose, code).to.equal(row.class !== 'NicepayConfigError' && row.status < 500);
    }
  });

  it('each class holds what its name says: no 5xx inside NicepayRequestError, no shop hook inside NicepayGatewayError, CONFIG_INVALID only for options', () => {
    for (const [code, row] of Object.entries(ERROR_CODES)) {
      if (row.class === 'NicepayRequestError') expect(row.status, code).to.be.within(400, 499);
      if (code.startsWith('NICEPAY_HOOK_')) expect(row.class, code).to.equal('NicepayHookError');
    }
    expect(ERROR_CODES.NICEPAY_SHUTTING_DOWN).to.deep.equal({ class: 'NicepayServiceError', status: 503 });
    expect(ERROR_CODES.NICEPAY_STORE_UNAVAILABLE).to.deep.equal({ class: 'NicepayServiceError', status: 503 });
    expect(ERROR_CODES.NICEPAY_BODY_ALREADY_PARSED).to.deep.equal({ class: 'NicepayServiceError', status: 500 });
    expect(ERROR_CODES.NICEPAY_HOOK_RESULT_INVALID).to.deep.equal({ class: 'NicepayHookError', status: 500 });
    // A hook that failed after a failed or skipped net cancel leaves a payment to reconcile.
    expect(new NicepayHookError('NICEPAY_HOOK_FAILED', 'm', { netCancel: 'succeeded' }).outcomeUnknown).to.equal(false);
    expect(new NicepayHookError('NICEPAY_HOOK_FAILED', 'm', { netCancel: 'not-attempted' }).outcomeUnknown).to.equal(
      true,
    );
    expect(new NicepayHookError('NICEPAY_HOOK_FAILED', 'm', { settlement: 'pending' }).outcomeUnknown).to.equal(true);
    expect(
      new NicepayHookError('NICEPAY_HOOK_FAILED', 'm', { netCancel: 'failed', settlement: 'reversed' }).outcomeUnknown,
    ).to.equal(false);
  });

  it("the split codes mean one thing each: the buyer's forgery (400) is not the gateway's unverifiable answer (502)", () => {
    expect(ERROR_CODES.NICEPAY_SIGNATURE_MISMATCH).to.deep.equal({ class: 'NicepayRequestError', status: 400 });
    expect(ERROR_CODES.NICEPAY_ANSWER_UNVERIFIED).to.deep.equal({ class: 'NicepayGatewayError', status: 502 });
    expect(ERROR_CODES.NICEPAY_AMOUNT_MISMATCH).to.deep.equal({ class: 'NicepayRequestError', status: 400 });
    expect(ERROR_CODES.NICEPAY_ANSWER_AMOUNT_MISMATCH).to.deep.equal({ class: 'NicepayGatewayError', status: 502 });
    expect(ERROR_CODES.NICEPAY_DUPLICATE_MISMATCH).to.deep.equal({ class: 'NicepayRequestError', status: 409 });
    expect(new NicepayGatewayError('NICEPAY_ANSWER_UNVERIFIED', 'm').outcomeUnknown).to.equal(true);
    expect(
      new NicepayGatewayError('NICEPAY_ANSWER_UNVERIFIED', 'm', { netCancel: 'succeeded' }).outcomeUnknown,
    ).to.equal(false);
  });

  it('toJSON carries no brand and no statusCode/expose noise', () => {
    const json = new NicepayGatewayError('NICEPAY_OUTCOME_UNKNOWN', 'm', { tid: 't' }).toJSON();
    expect(json).to.deep.equal({
      name: 'NicepayGatewayError',
      code: 'NICEPAY_OUTCOME_UNKNOWN',
      status: 502,
      message: 'm',
      tid: 't',
      outcomeUnknown: true,
    });
  });
});

describe('instanceof of each error class', () => {
  const samples = {
    NicepayConfigError: () => new NicepayConfigError('x', 'y'),
    NicepayRequestError: () => new NicepayRequestError('NICEPAY_FIELD_INVALID', 'm'),
    NicepayServiceError: () => new NicepayServiceError('NICEPAY_SHUTTING_DOWN', 'm'),
    NicepayHookError: () => new NicepayHookError('NICEPAY_HOOK_FAILED', 'm'),
    NicepayScheduleError: () => new NicepayScheduleError('past-date', 'm'),
    NicepayGatewayError: () => new NicepayGatewayError('NICEPAY_OUTCOME_UNKNOWN', 'm'),
    NicepayDataApiError: () => new NicepayDataApiError('3001', 'msg', 'r', 's'),
  } as const;

  for (const name of Object.keys(samples) as Array<keyof typeof samples>) {
    it(`${name}: true only for its own instances, in this copy and another one`, async () => {
      const other = await secondCopy();
      expect(other.NicepayError).to.not.equal(NicepayError);
      for (const [candidate, build] of Object.entries(samples)) {
        const mine = build();
        const same = candidate === name;
        expect(mine instanceof CLASSES[name], `${candidate} instanceof ${name}`).to.equal(same);
        expect(mine instanceof other[name], `${candidate} instanceof other copy's ${name}`).to.equal(same);
        expect(mine instanceof NicepayError).to.equal(true);
        expect(mine instanceof other.NicepayError).to.equal(true);
        expect(isNicepayError(mine)).to.equal(true);
      }
      expect(new Error('plain') instanceof CLASSES[name]).to.equal(false);
      expect({ code: 'NICEPAY_FIELD_INVALID' } instanceof CLASSES[name]).to.equal(false);
      expect((null as unknown as object) instanceof CLASSES[name]).to.equal(false);
    });
  }

  it("a subclass of a package class is an instance of it, and a shop's own subclass keeps ordinary instanceof", () => {
    class ShopError extends NicepayGatewayError {}
    const e = new ShopError('NICEPAY_OUTCOME_UNKNOWN', 'm');
    expect(e instanceof ShopError).to.equal(true);
    expect(e instanceof NicepayGatewayError).to.equal(true);
    expect(new NicepayGatewayError('NICEPAY_OUTCOME_UNKNOWN', 'm') instanceof ShopError).to.equal(false);
    expect(e instanceof NicepayScheduleError).to.equal(false);
  });
});

describe('an error keeps no frames of where it was made', () => {
  /**
   * Counts the stacks V8 makes text while `fn` runs: it calls Error.prepareStackTrace when a
   * stack is first read, so an error whose stack was made text in its constructor has been counted.
   */
  function stacksMadeText(fn: () => unknown): string[] {
    const named: string[] = [];
    const before = Error.prepareStackTrace;
    Error.prepareStackTrace = (error, frames) => {
      named.push((error as Error).name);
      return `${(error as Error).name}: ${(error as Error).message}\n${frames.map((f) => `    at ${f}`).join('\n')}`;
    };
    try {
      fn();
    } finally {
      Error.prepareStackTrace = before;
    }
    return named;
  }

  it('every error class of the package makes its stack text when it is made, headed by its own name', () => {
    for (const code of Object.keys(ERROR_CODES) as NicepayErrorCode[]) {
      let err: NicepayError | undefined;
      expect(
        stacksMadeText(() => (err = make(code))),
        code,
      ).to.deep.equal([ERROR_CODES[code].class]);
      expect(err!.stack!.split('\n')[0], code).to.equal(`${ERROR_CODES[code].class}: ${err!.message}`);
      expect(err!.name).to.equal(ERROR_CODES[code].class);
    }
  });

  it("the stack's first line is the error's name and whole message: a data-host refusal's merchant-key hint, a shop subclass's own name", () => {
    const refused = dataHostRefusal('1000', '', '0102001', '/om/api');
    expect(refused.message).to.match(/\(the gateway could not verify .*merchantKey/);
    expect(refused.stack!.split('\n')[0]).to.equal(`NicepayDataApiError: ${refused.message}`);
    class OrderRejected extends NicepayRequestError {
      override name = 'OrderRejected';
    }
    const own = new OrderRejected('NICEPAY_FIELD_INVALID', 'no such order', 'moid');
    expect(own.stack!.split('\n')[0]).to.equal('OrderRejected: no such order');
    expect(own).to.be.instanceOf(NicepayRequestError);
  });

  it('so do the errors it wraps, the store-full and transport errors, and the errors the adapters pass on', () => {
    const cause = new Error('inner');
    expect(
      stacksMadeText(() => new NicepayServiceError('NICEPAY_STORE_FULL', 'm', new StoreFullError('full'))),
    ).to.deep.equal(['StoreFullError', 'NicepayServiceError']);
    expect(stacksMadeText(() => new TransportError('reset', true, 'reset'))).to.deep.equal(['TransportError']);
    // A shop's own error, and one it wraps, passed on by a route.
    expect(stacksMadeText(() => withStackText(new Error('outer', { cause })))).to.deep.equal(['Error', 'Error']);
    // Read once: the second read makes nothing.
    expect(stacksMadeText(() => withStackText(cause))).to.deep.equal([]);
  });
});
