// Compiled into the Jazzer.js native fuzzer by `cargo xtask fuzz ts` (see
// README.md here). The libFuzzer fork hands its crash-input dumper to
// __jazzer_set_death_callback; upstream libFuzzer registers the same thing
// (dump the current input as crash-<sha1>, print the final stats) through the
// sanitizer hook __sanitizer_set_death_callback when that symbol exists.
// Forward it, so that Jazzer.js's printAndDumpCrashingInput writes the
// artifact before Jazzer.js exits.
extern "C" void __jazzer_set_death_callback(void (*callback)());

extern "C" __attribute__((visibility("default"))) void
__sanitizer_set_death_callback(void (*callback)()) {
  __jazzer_set_death_callback(callback);
}
