import autocannon from 'autocannon';

/** One autocannon run of `duration` seconds, no pipelining. */
function run(options, duration) {
  return new Promise((resolve, reject) => {
    autocannon({ ...options, duration, pipelining: 1 }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

/**
 * Load at `options.connections` for `warmup` seconds (discarded), then for `duration` seconds.
 * @param {object} options autocannon's: url, method, headers, body, connections
 * @returns the measured run in short: requests/s, latency p50 and p99, and the requests that failed
 *   (non-2xx, errors, timeouts)
 */
export async function measureLoad(options, { warmup, duration }) {
  await run(options, warmup);
  const result = await run(options, duration);
  return {
    requests_per_s: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    failed: result.non2xx + result.errors + result.timeouts,
    bytes_per_response: Math.round(result.throughput.total / Math.max(1, result.requests.total)),
  };
}
