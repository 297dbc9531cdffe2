#!/usr/bin/env bash
# Builds the C++ reference JSON parser (json_parse.cpp, see PROTOCOL.md)
# against Debian's libflatbuffers-dev (its header and library).
# Usage: conformance/cpp/build_json.sh [OUTPUT]
# (default OUTPUT: conformance/cpp/build/json_parse). Installs nothing.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$here/build/json_parse}"
header=/usr/include/flatbuffers/idl.h
cxx="${CXX:-g++}"

if [[ ! -f "$header" ]]; then
  echo "build_json.sh: $header not found; install Debian's libflatbuffers-dev" \
       "(apt-get install libflatbuffers-dev) and run again" >&2
  exit 1
fi
if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "build_json.sh: C++ compiler '$cxx' not found (install g++)" >&2
  exit 1
fi

mkdir -p "$(dirname "$out")"
set -x
"$cxx" -O1 -std=c++17 -Wall -Wextra -Werror -o "$out" "$here/json_parse.cpp" -lflatbuffers
