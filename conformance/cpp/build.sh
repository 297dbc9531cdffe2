#!/usr/bin/env bash
# Builds the C++ reference replayer (see PROTOCOL.md) against Debian's
# libflatbuffers-dev. Usage: conformance/cpp/build.sh [OUTPUT]
# (default OUTPUT: conformance/cpp/build/replay). Installs nothing.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$here/build/replay}"
# shellcheck source=toolchain.sh
source "$here/toolchain.sh"
require_toolchain build.sh /usr/include/flatbuffers/flexbuffers.h

mkdir -p "$(dirname "$out")"
# Assertions stay on: the builder's asserts are how invalid call sequences
# are rejected, so NDEBUG must never be defined here.
set -x
"$cxx" -O1 -std=c++17 -Wall -Wextra -Werror -o "$out" "$here/replay.cpp"
