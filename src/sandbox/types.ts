import type { IncomingHttpHeaders } from 'node:http';
import type { VirtualClock } from './clock.js';
import type { FaultQueue } from './faults.js';
import type { Ledger } from './ledger.js';

/** A merchant the sandbox knows, with its contract settings. */
export interface SandboxMerchant {
  mid: string;
  merchantKey: string;
  /** Key-in: the contract requires BuyerAuthNum (birth date / business number). @default false */
  keyinRequiresAuthNum?: boolean;
  /** Key-in: the contract requires the 2 card-password digits. @default false */
  keyinRequiresPassword?: boolean;
  /** Data host login id (interface D usrId). @default `${mid}admin` */
  usrId?: string;
  /** Where payment notices (deposits, and cancels with notifyCancels) are posted. @default none */
  notificationUrl?: string;
  /** Also notify cancels (StateCd 1/2) made through cancel_process.jsp, except a virtual account's refund. @default false */
  notifyCancels?: boolean;
  /** Notice retries when the answer is not exactly OK (merchant admin: 1-10 min, 1-10 times). @default { intervalMinutes: 1, count: 3 } */
  notificationRetry?: { intervalMinutes: number; count: number };
  /** The contract allows partial cancels (PartialCancelCode=1). @default true */
  partialCancel?: boolean;
  /**
   * Cancel this merchant's approved transactions at 23:30 KST of their day, on the virtual
   * clock, as the real test gateway does for its test MIDs (lifecycle-facts 2).
   * @default true for the published test MIDs (nicepay00m, nictest04m), false for any other
   */
  testAutoCancel?: boolean;
}

/** A request as a sandbox handler sees it: the whole body already read. */
export interface SandboxRequest {
  method: string;
  /** Path without the query. */
  path: string;
  query: URLSearchParams;
  /** The query as sent, without the '?' (its escapes may be EUC-KR bytes, which `query` cannot keep). */
  rawQuery?: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** What a handler answers. */
export interface SandboxResponse {
  status: number;
  headers?: Record<string, string>;
  body: Buffer | string;
  /** Wait this long before answering (fault injection: a delay past the client's timeout). */
  delayMs?: number;
  /** Destroy the socket instead of answering (fault injection: a dropped connection). */
  drop?: boolean;
}

/**
 * Rules the documents do not settle, so the sandbox makes them configurable (docs/sandbox.md,
 * "The sandbox's own choices"). Filled from SandboxOptions with their defaults.
 */
export interface SandboxRules {
  /** How far a client's KST timestamp (EdiDate, trDtm, a key-in TID's time) may be from the clock. */
  ediDateToleranceMs: number;
  /** A refused approval that proved the merchant sent it (W004, A127, A123, 3011) burns the AuthToken. */
  burnTokenOnRefusal: boolean;
  /** An "already processed" refusal (1682, I003) names the transaction's Moid. */
  processedNamesOrder: boolean;
}

/** The state every handler shares. */
export interface SandboxState {
  merchants: ReadonlyMap<string, Required<SandboxMerchant>>;
  clock: VirtualClock;
  ledger: Ledger;
  faults: FaultQueue;
  /** The sandbox's own base URL once listening (for NextAppURL and the window page). */
  url(): string;
  /** Per-module state, keyed by module name (e.g. 'data-host'). */
  modules: Map<string, unknown>;
  /** The sandbox's own choices where the documents give no value (SandboxOptions). */
  rules: SandboxRules;
  /** Runs what the virtual clock has made due (the test merchants' 23:30 cancels); called before every request. */
  tick(): void;
}

/** One route's handler. */
export type SandboxHandler = (req: SandboxRequest, state: SandboxState) => SandboxResponse | Promise<SandboxResponse>;

/** A sandbox module: routes it serves, keyed by `METHOD /path`. */
export interface SandboxModule {
  name: string;
  routes: Readonly<Record<string, SandboxHandler>>;
}
