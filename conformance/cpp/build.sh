#!/usr/bin/env bash
# Builds the C++ reference replayer (see PROTOCOL.md) against Debian's
# libflatbuffers-dev. Usage: conformance/cpp/build.sh [OUTPUT]
# (default OUTPUT: conformance/cpp/build/replay). Installs nothing.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$here/build/replay}"
header=/usr/include/flatbuffers/flexbuffers.h
cxx="${CXX:-g++}"

if [[ ! -f "$header" ]]; then
  echo "build.sh: $header not found; install Debian's libflatbuffers-dev" \
       "(apt-get install libflatbuffers-dev) and run again" >&2
  exit 1
fi
if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "build.sh: C++ compiler '$cxx' not found (install g++)" >&2
  exit 1
fi

mkdir -p "$(dirname "$out")"
# Assertions stay on: the builder's asserts are how invalid call sequences
# are rejected, so NDEBUG must never be defined here.
set -x
"$cxx" -O1 -std=c++17 -Wall -Wextra -Werror -o "$out" "$here/replay.cpp"
