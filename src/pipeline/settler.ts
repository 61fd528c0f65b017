import type { ClientContext } from '../context.js';
import { errorText } from './hook-runner.js';
import { type KindRegistry, type SettleSettings, settlePass } from './settle.js';

/** The in-process settler: a timer that runs a settlement pass every `intervalMs`. */
export interface Settler {
  /** Stops the timer; a pass under way finishes (close() waits for it). */
  stop(): void;
}

/**
 * Starts the automatic settler: every `intervalMs` one pass (never two at once in this
 * process; another instance settles other records, each under its lease). Its timer is unref'd,
 * so it never keeps the process alive, and each pass is tracked, so close() waits for it.
 */
export function startSettler(
  ctx: ClientContext,
  kinds: KindRegistry,
  settings: SettleSettings,
  intervalMs: number,
): Settler {
  let running = false;
  const timer = setInterval(() => {
    if (running || ctx.isClosing()) return;
    running = true;
    void ctx
      .track(settlePass(ctx, kinds, settings))
      .then(
        (report) => {
          if (report.settled.length > 0 || report.unsettled.length > 0) {
            ctx.config.logger.info(
              { step: 'settle', settled: report.settled.length, unsettled: report.unsettled.length },
              'settlement pass',
            );
          }
        },
        (err: unknown) =>
          ctx.config.logger.error(
            { step: 'settle', error: errorText(err) },
            'settlement pass failed; the next one tries again',
          ),
      )
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
