#!/usr/bin/env bash
# Hand-checked cases for the C++ reference replayer (PROTOCOL.md). Each
# expected value was derived by reading flexbuffers.h (libflatbuffers 2.0.8),
# not by running the binary, so a protocol or build mistake shows up here.
# Usage: conformance/cpp/smoke_test.sh [REPLAY] (default conformance/cpp/build/replay;
# build it first with conformance/cpp/build.sh).
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
replay="${1:-$here/build/replay}"
if [[ ! -x "$replay" ]]; then
  echo "smoke_test.sh: $replay not found; run conformance/cpp/build.sh first" >&2
  exit 1
fi

failures=0
count=0

# check NAME EXPECTED_HEX LINE... : one case, one output line, exit 0.
check() {
  local name="$1" expected="$2"
  shift 2
  local got rc
  got="$(printf '%s\n' "$@" | "$replay" 2>&1)"
  rc=$?
  count=$((count + 1))
  if [[ $rc -ne 0 || "$got" != "$expected" ]]; then
    echo "FAIL $name: expected '$expected' (exit 0), got '$got' (exit $rc)"
    failures=$((failures + 1))
  else
    echo "ok   $name: $(printf '%s' "$got" | tr '\n' '|')"
  fi
}

# check_error NAME EXPECTED_STDOUT EXPECTED_EXIT LINE...
check_error() {
  local name="$1" expected="$2" expected_rc="$3"
  shift 3
  local got rc
  got="$(printf '%s\n' "$@" | "$replay" 2>/dev/null)"
  rc=$?
  count=$((count + 1))
  if [[ $rc -ne $expected_rc || "$got" != "$expected" ]]; then
    echo "FAIL $name: expected '$expected' (exit $expected_rc), got '$got' (exit $rc)"
    failures=$((failures + 1))
  else
    echo "ok   $name: exit $rc, $(printf '%s' "$got" | tr '\n' '|')"
  fi
}

# Scalar root: value 01, packed type INT|8-bit = 04, root byte width 01.
check "int root" 010401 'case 1' 'int 1' 'finish'
# f32-exact double is stored at 4 bytes: 1.0f, type FLOAT|32-bit = 0e, width 4.
check "double root" 0000803f0e04 'case 0' 'double 3ff0000000000000' 'finish'
check "bool root" 016801 'case 0' 'bool 1' 'finish'
# len 03, "abc\0", offset back 4 to the chars, type STRING = 14.
check "string root" 0361626300041401 'case 0' 'string 616263' 'finish'
check "key root" 6100021001 'case 0' 'key 61' 'finish'
check "blob root" 020102026401 'case 0' 'blob 0102' 'finish'
check "empty blob root" 00006401 'case 0' 'blob -' 'finish'
check "indirect_int -1" ff011801 'case 0' 'indirect_int -1' 'finish'
# Empty containers: the root offset is 0 (it points just past the size field,
# i.e. at itself).
check "empty untyped vector" 00002801 'case 0' 'start_vector' 'end_vector 0 0' 'finish'
# keys vector (len 0), then map prefix: keys offset 0, keys width 1, len 0.
check "empty map" 00000100002401 'case 0' 'start_map' 'end_map' 'finish'
# Keys sorted by strcmp: "a" (at 2) before "b" (at 0); keys offsets 03 06.
check "map keys out of order" 6200610002030602010201020404042401 \
  'case 1' 'start_map' 'key 62' 'int 2' 'key 61' 'int 1' 'end_map' 'finish'
check "typed int vector" 03010203032c01 \
  'case 0' 'start_vector' 'int 1' 'int 2' 'int 3' 'end_vector 1 0' 'finish'
# An empty typed vector keeps the builder's default element type KEY: 38.
check "empty typed vector is VECTOR_KEY" 00003801 \
  'case 0' 'start_vector' 'end_vector 1 0' 'finish'
# No size field; type VECTOR_INT3|32-bit = 4e.
check "fixed_vector int 4" 0100000002000000030000000c4e01 \
  'case 0' 'fixed_vector int 4 1 2 3' 'finish'
check "scalar_vector uint 1" 03010203033001 \
  'case 0' 'scalar_vector uint 1 1 2 3' 'finish'
check "scalar_vector bool 1" 03010001039001 \
  'case 0' 'scalar_vector bool 1 1 0 1' 'finish'
check "scalar_vector float 4" 010000000000803f043601 \
  'case 0' 'scalar_vector float 4 3f800000' 'finish'
# Deviation: 3.0 is exact in f32, so IndirectFloat(3.0f), type 22.
check "indirect_double 3.0 (deviation)" 00004040042201 \
  'case 0' 'indirect_double 4008000000000000' 'finish'
# 0.1 is not exact in f32: plain IndirectDouble, 8 bytes, type 23.
check "indirect_double 0.1" 9a9999999999b93f082301 \
  'case 0' 'indirect_double 3fb999999999999a' 'finish'
check "mark/reuse string" 026162000204051414042801 \
  'case 0' 'start_vector' 'string 6162' 'mark' 'reuse 0' 'end_vector 0 0' 'finish'
# Flag 2 shares the repeated string: same bytes as mark/reuse above.
check "flags 2 shares strings" 026162000204051414042801 \
  'case 2' 'start_vector' 'string 6162' 'string 6162' 'end_vector 0 0' 'finish'
check "flags 0 copies strings" 02616200026162000208051414042801 \
  'case 0' 'start_vector' 'string 6162' 'string 6162' 'end_vector 0 0' 'finish'
# Size and element widened to 4 bytes; element type INT|32-bit = 06.
check "force_min_width 4" 010000000100000006052a01 \
  'case 0' 'force_min_width 4' 'start_vector' 'int 1' 'end_vector 0 0' 'finish'
# Two cases in one run: state (flags, slots, min width) resets per case.
check "two cases" "$(printf '010401\n00002801')" \
  'case 0' 'int 1' 'finish' 'case 0' 'start_vector' 'end_vector 0 0' 'finish'

# Malformed lines: `error LINE: MESSAGE`, exit 2, earlier cases still printed.
check_error "malformed integer" "$(printf '010401\nerror 5: leading zero in integer %s' "'01'")" 2 \
  'case 0' 'int 1' 'finish' 'case 0' 'int 01' 'finish'
check_error "op outside case" "error 1: 'int' outside a case" 2 'int 1'
check_error "double space" "error 2: tokens must be separated by single spaces" 2 \
  'case 0' 'int  1'
check_error "unknown op" "error 2: unknown operation 'float32'" 2 'case 0' 'float32 3f800000'
check_error "uppercase float bits" "error 2: not lowercase hex: '3F800000'" 2 \
  'case 0' 'float 3F800000'
check_error "short double bits" "error 2: float bits must be 16 lowercase hex digits: '3ff00000'" 2 \
  'case 0' 'double 3ff00000'
check_error "reuse unmarked slot" "error 3: reuse of slot 0 but only 0 marked in this case" 2 \
  'case 0' 'start_vector' 'reuse 0'
check_error "unclosed container" "error 4: finish with the container of line 2 still open" 2 \
  'case 0' 'start_vector' 'int 1' 'finish'
check_error "unfinished case" "error 1: input ended before this case's finish" 2 'case 0' 'int 1'
# A well-formed sequence the builder rejects trips its assertion (SIGABRT).
check_error "builder assertion aborts" 010401 134 \
  'case 0' 'int 1' 'finish' 'case 0' 'int 1' 'int 2' 'finish'

if [[ $failures -ne 0 ]]; then
  echo "smoke_test.sh: $failures of $count checks failed"
  exit 1
fi
echo "smoke_test.sh: all $count checks passed"
