// Requests in flight (src/platform/http/requests-in-flight.ts): counted at the server, reported by a supervised web worker
// when they change (at most every REPORT_EVERY_MS), summed by the supervisor, heard by the background worker.
import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  countRequestsInFlight,
  hearRequestsInFlight,
  REQUESTS_IN_FLIGHT_MESSAGE,
  reportRequestsInFlight,
  requestsInFlight,
  requestsInFlightMessage as message,
  requestsTally,
  type RequestsInFlightMessage,
  type Schedule,
} from '../../src/platform/http/requests-in-flight.ts';

/** A server whose requests the test starts and ends: `start()` answers a function that closes the response. */
function fakeServer() {
  const server = new EventEmitter();
  countRequestsInFlight(server as unknown as Server);
  return {
    start() {
      const res = new EventEmitter();
      server.emit('request', {}, res);
      return () => res.emit('close');
    },
  };
}

/** A schedule the test runs by hand. */
function manualSchedule() {
  const due: (() => void)[] = [];
  const schedule: Schedule = (fn) => {
    due.push(fn);
    return () => due.splice(due.indexOf(fn), 1);
  };
  return { schedule, due, run: () => due.splice(0).forEach((fn) => fn()) };
}

describe('requests in flight', () => {
  const stops: (() => void)[] = [];
  afterEach(() => {
    stops.splice(0).forEach((stop) => stop());
    hearRequestsInFlight(message(0));
  });

  it('counts a request from its arrival to the close of its response', () => {
    const server = fakeServer();
    const before = requestsInFlight();
    const ends = [server.start(), server.start()];
    expect(requestsInFlight()).toBe(before + 2);
    ends.forEach((end) => end());
    expect(requestsInFlight()).toBe(before);
  });

  it('a web worker reports its count once per period, as it is then, and only when it changed', () => {
    const server = fakeServer();
    const sent: RequestsInFlightMessage[] = [];
    const timer = manualSchedule();
    stops.push(reportRequestsInFlight((m) => sent.push(m), { schedule: timer.schedule }));
    const ends = [server.start(), server.start(), server.start()];
    // Three changes, one report pending.
    expect(timer.due).toHaveLength(1);
    timer.run();
    expect(sent).toEqual([message(3)]);
    ends[0]();
    ends[0] = server.start();
    // One ended and one arrived: the count is back where it was reported, nothing is sent.
    timer.run();
    expect(sent).toEqual([message(3)]);
    ends[1]();
    ends[2]();
    timer.run();
    expect(sent).toEqual([message(3), message(1)]);
    expect(timer.due).toHaveLength(0);
    ends[0]();
  });

  it('stopping the reports cancels the pending one', () => {
    const server = fakeServer();
    const sent: RequestsInFlightMessage[] = [];
    const timer = manualSchedule();
    const stop = reportRequestsInFlight((m) => sent.push(m), { schedule: timer.schedule });
    const end = server.start();
    stop();
    expect(timer.due).toHaveLength(0);
    end();
    expect(timer.due).toHaveLength(0);
    expect(sent).toEqual([]);
  });

  it('the background worker counts what it hears as its own, and ignores other messages', () => {
    const before = requestsInFlight();
    expect(hearRequestsInFlight(message(5))).toBe(true);
    expect(requestsInFlight()).toBe(before + 5);
    expect(hearRequestsInFlight({ type: 'pinkas:metrics-scrape', id: 1 })).toBe(false);
    expect(hearRequestsInFlight({ type: REQUESTS_IN_FLIGHT_MESSAGE, n: 'many' })).toBe(false);
    expect(hearRequestsInFlight({ type: REQUESTS_IN_FLIGHT_MESSAGE, n: -1 })).toBe(false);
    expect(hearRequestsInFlight(null)).toBe(false);
    expect(requestsInFlight()).toBe(before + 5);
    hearRequestsInFlight(message(0));
    expect(requestsInFlight()).toBe(before);
  });

  it('the supervisor sums the web workers and answers the sum only when it changed', () => {
    const tally = requestsTally();
    expect(tally.report(1, message(3))).toBe(3);
    expect(tally.report(2, message(2))).toBe(5);
    expect(tally.report(2, message(2))).toBeNull();
    expect(tally.report(1, { type: 'pinkas:metrics-scrape', id: 7 })).toBeNull();
    expect(tally.report(1, message(0))).toBe(2);
    // A worker that exits takes its count with it.
    expect(tally.forget(2)).toBe(0);
    expect(tally.forget(2)).toBeNull();
    expect(tally.sum).toBe(0);
  });
});
