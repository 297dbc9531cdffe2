// Interleaved timing for the document scripts (`json_files.mjs`,
// `record_datasets.mjs`): each round gives every contender about `ms`
// milliseconds of calls in turn, so all of them see the same machine.

/**
 * Median milliseconds per call of each contender (a function of no
 * arguments) over `rounds` rounds of `ms` milliseconds each.
 */
export function interleaved(contenders, rounds = 15, ms = 30) {
  const times = Object.fromEntries(Object.keys(contenders).map((k) => [k, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [key, call] of Object.entries(contenders)) {
      const start = performance.now();
      let calls = 0;
      while (performance.now() - start < ms) {
        call();
        calls++;
      }
      times[key].push((performance.now() - start) / calls);
    }
  }
  const median = (a) => a.sort((x, y) => x - y)[a.length >> 1];
  return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
}
